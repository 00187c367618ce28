"""The ladder: scheduling rated games (pairing, settling), a new version's placement burst, a bot's status in words."""
