"""Accounts: a display name of one's own, passkeys to sign in with, and server-side sessions."""
