"""Barbarossa: a digital adaptation of Klaus Teuber's clay-riddle game (shared/rules/barbarossa.md)."""
