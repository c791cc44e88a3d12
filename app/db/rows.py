"""The one row of a statement that always returns one."""

from __future__ import annotations

from typing import TypeVar

Row = TypeVar("Row")


def one(row: Row | None) -> Row:
    """``row``, from ``fetchone()`` after a statement that returns exactly one row (an
    aggregate, ``INSERT ... RETURNING`` of one row, ``SHOW``): psycopg types it optional."""
    if row is None:
        raise LookupError("the statement returned no row")
    return row
