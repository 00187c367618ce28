"""Accounts: sign-up and its limits, e-mail verification, what a new password ends, API tokens."""
