"""Pure data generators of the core resources (no HTTP): a function of seed, account,
profile and index, plus the clock for visibility and status."""
