"""Love Letter (classic 16-card edition): rules engine and built-in players."""
