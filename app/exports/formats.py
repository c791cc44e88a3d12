"""Encoders: batches of rows (tuples in the export's column order) -> bytes to stream.

Each encoder keeps at most one batch in memory: CSV writes each batch into a fresh buffer,
Parquet writes each batch as one row group and hands over what the writer has flushed.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from app.exports.columns import columns_of, schema_of

#: Media types without a charset: Litestar adds ``; charset=utf-8`` to every ``text/`` type.
FORMATS = {"csv": "text/csv", "parquet": "application/vnd.apache.parquet"}


#: First characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralised(text: str) -> str:
    """``text`` behind a single quote when it starts like a formula, as OWASP recommends; a
    spreadsheet then shows it as text (docs/data.md, "Exports")."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _csv_value(value: Any) -> Any:
    # Only text columns (and JSON as text) arrive as str: numeric ones arrive as Decimal or
    # int, so a negative amount stays a number.
    if type(value) is str:
        return neutralised(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)  # as stored: numeric keeps the upstream's scale
    if isinstance(value, list):
        return json.dumps(value)
    return value


class CsvEncoder:
    """RFC 4180 CSV (the standard library's ``csv``), a header line first; text cells that
    start like a formula are neutralised (``neutralised``)."""

    def __init__(self, resource: str) -> None:
        self.names = [c.name for c in columns_of(resource)]

    def start(self) -> bytes:
        return self._lines([self.names])

    def batch(self, rows: Sequence[tuple]) -> bytes:
        return self._lines([_csv_value(v) for v in row] for row in rows)

    def finish(self) -> bytes:
        return b""

    @staticmethod
    def _lines(rows: Iterable[Iterable[Any]]) -> bytes:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(rows)
        return buffer.getvalue().encode()


class _Sink(io.RawIOBase):
    """A write-only file that keeps what was written until it is taken."""

    def __init__(self) -> None:
        self._chunks: list[bytes] = []
        self._position = 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        chunk = bytes(data)
        self._chunks.append(chunk)
        self._position += len(chunk)
        return len(chunk)

    def tell(self) -> int:
        return self._position

    def take(self) -> bytes:
        data, self._chunks = b"".join(self._chunks), []
        return data


class ParquetEncoder:
    """Parquet with one row group per batch (pyarrow); the footer comes with ``finish``."""

    def __init__(self, resource: str) -> None:
        self.schema = schema_of(resource)
        self._sink = _Sink()
        self._writer = pq.ParquetWriter(self._sink, self.schema, compression="zstd")

    def start(self) -> bytes:
        return self._sink.take()

    def batch(self, rows: Sequence[tuple]) -> bytes:
        columns: list[Sequence[Any]] = list(zip(*rows, strict=True)) if rows else [[] for _ in self.schema]
        arrays = [pa.array(values, type=field.type) for values, field in zip(columns, self.schema, strict=True)]
        self._writer.write_table(pa.Table.from_arrays(arrays, schema=self.schema))
        return self._sink.take()

    def finish(self) -> bytes:
        self._writer.close()
        return self._sink.take()


def encoder(resource: str, fmt: str) -> CsvEncoder | ParquetEncoder:
    return CsvEncoder(resource) if fmt == "csv" else ParquetEncoder(resource)
