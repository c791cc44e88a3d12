"""Secrets at rest: upstream credentials and webhook signing secrets are stored encrypted
(``keyring``), with the keys of RELAY_SECRET_KEYS or the embedded default's key file
(``keys``); ``rewrite`` re-encrypts a column in batches (the migration, ``relay secrets
rotate``), ``cli`` is ``relay secrets``. docs/operations.md, "Secrets at rest"."""
