"""Remote bots: bots their owners run on their own machines, seated through a channel (docs/remote.md)."""
