"""Accounts: API tokens and their authentication, the profile page, login lockout, and
deactivating users who have work.

See docs/architecture.md for the layers and the rules."""
