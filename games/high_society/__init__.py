"""High Society (Reiner Knizia): bid money cards for guests, avoid scandals, and never end up the poorest."""
