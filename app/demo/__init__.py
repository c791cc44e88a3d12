"""`relay demo`: the whole stack in one command (run.py) and what it tells its user (banner.py)."""
