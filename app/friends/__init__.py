"""Friends between accounts: requests, blocks, presence in the live store, and invitations to a
table (``docs/design.md``, "Friends and presence")."""
