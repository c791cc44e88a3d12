"""Export files on disk (scheduled exports, ``relay schedules``): one file per account,
resource and window, named by them, written atomically.

The bytes are the export route's (``app.exports.run.encoded``: same columns, same encoders).
They go to a temporary name in the target directory (a dot file ending ``.tmp``, so a
``*.parquet`` glob never sees it), are flushed to disk, then renamed into place: a reader
sees the whole file or none, never a half file, even when the writer dies.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from datetime import UTC, datetime
from pathlib import Path

from psycopg import AsyncConnection

from app.exports.rows import same_connection
from app.exports.run import encoded


def private_file(path: Path) -> int:
    """``path`` opened for writing, emptied; created with mode 0600 (an existing file keeps
    its mode): an export is an account's financial data."""
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)


def _stamp(moment: datetime) -> str:
    """A window bound in a file name: UTC to the second, microseconds only when present."""
    moment = moment.astimezone(UTC)
    text = moment.strftime("%Y%m%dT%H%M%S")
    return (f"{text}.{moment.microsecond:06d}" if moment.microsecond else text) + "Z"


def file_name(account_id: int, resource: str, start: datetime, end: datetime, fmt: str) -> str:
    """``<account>_<resource>_<start>_<end>.<format>``, both bounds inclusive, e.g.
    ``710001_earnings_20260101T000000Z_20260108T000000Z.parquet``."""
    return f"{account_id}_{resource}_{_stamp(start)}_{_stamp(end)}.{fmt}"


async def write_export_file(
    conn: AsyncConnection, account_id: int, resource: str, fmt: str,
    start: datetime, end: datetime, directory: Path, *, batch: int,
) -> tuple[Path, int]:
    """Write the export of [start, end] into ``directory``; returns the file and its rows."""
    directory.mkdir(parents=True, exist_ok=True)
    final = directory / file_name(account_id, resource, start, end, fmt)
    temporary = directory / f".{final.name}.{uuid.uuid4().hex}.tmp"
    rows = 0

    def count(n: int) -> None:
        nonlocal rows
        rows += n

    try:
        with os.fdopen(private_file(temporary), "wb") as out:
            async for chunk in encoded(same_connection(conn), account_id, resource, fmt, start, end, batch=batch,
                                       on_rows=count):
                out.write(chunk)
            out.flush()
            await asyncio.to_thread(os.fsync, out.fileno())
        os.replace(temporary, final)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return final, rows
