"""Bot authors' pages: guides, game references, starter kits, and the challenge pages."""
