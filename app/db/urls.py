"""Conversions between the URL forms of one PostgreSQL database.

Settings and psycopg use the plain libpq form (``postgresql://...``); SQLAlchemy
needs its dialect+driver form (``postgresql+psycopg://...``).
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def plain_url(url: str) -> str:
    """The libpq form of ``url`` (what psycopg and psql accept)."""
    parts = urlsplit(url)
    if parts.scheme in {"postgresql+psycopg", "postgres"}:
        parts = parts._replace(scheme="postgresql")
    return urlunsplit(parts)


def sqlalchemy_url(url: str) -> str:
    """The SQLAlchemy form of ``url``, using the psycopg 3 driver."""
    parts = urlsplit(plain_url(url))
    return urlunsplit(parts._replace(scheme="postgresql+psycopg"))


def with_database(url: str, database: str) -> str:
    """The same server and credentials, another database name."""
    parts = urlsplit(plain_url(url))
    return urlunsplit(parts._replace(path="/" + database))


def database_name(url: str) -> str:
    return urlsplit(url).path.lstrip("/")
