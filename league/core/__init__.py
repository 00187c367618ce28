"""What every feature builds on, and which imports no feature: the error catalog, the outbox of tasks, the one lease
primitive for queued work, and small shared helpers (ids, rows, reasons, replay storage, times in words)."""
