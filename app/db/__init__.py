"""Database layer: models (metadata for Alembic), URL helpers, pool, embedded server."""
