"""The ``cash-stash`` command and its subcommands that are not the server: AI tournaments
(``simulate``) and a finished game's review in the terminal (``review``)."""
