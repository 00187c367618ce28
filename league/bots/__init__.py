"""Bots: uploads, versions, validation (its queue and records), fair use and pausing, the house bots."""
