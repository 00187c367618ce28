"""The site's shared page parts: the main pages, forms, the context every page shares, visibility rules, and how
pages keep up (htmx parts, server-sent events, the stream hub and its caps)."""
