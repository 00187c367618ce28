"""Watching live: what a live match's worker publishes, what a spectator is sent, the live pages."""
