"""Administration: organizations, keys, accounts and credits (service.py), behind
`relay orgs|keys|accounts|credits` (cli.py)."""
