"""Challenges and version tests: a bot author's own unrated games against chosen opponents."""
