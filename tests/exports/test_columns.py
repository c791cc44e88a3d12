"""The export's column order is documented (docs/data.md): each exported table's columns
as its section lists them, then payload, first_seen_at, last_synced_at. The SELECT list,
the CSV header and the Parquet schema all come from ``columns_of``, so one check covers them."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa
import pytest

from app.exports.columns import DECIMAL, RESOURCES, columns_of, schema_of
from app.exports.rows import rows_sql

DATA_MD = Path(__file__).resolve().parents[2] / "docs" / "data.md"


#: Columns the Exports section of docs/data.md says an export leaves out.
LEFT_OUT = {"ord"}


def documented_columns(resource: str) -> list[str]:
    """The first cell's column names of each row of the resource's table in docs/data.md,
    less those an export leaves out, then the three common columns."""
    text = DATA_MD.read_text()
    section = re.search(rf"^## {resource}\n(.*?)(?=^## )", text, re.S | re.M)[1]
    names = []
    for line in section.splitlines():
        if line.startswith("| `"):
            names += [n for n in re.findall(r"`([a-z_]+)`", line.split("|")[1]) if n not in LEFT_OUT]
    return names + ["payload", "first_seen_at", "last_synced_at"]


@pytest.mark.parametrize("resource", list(RESOURCES))
def test_export_columns_follow_the_documented_order(resource):
    assert "except `ord`" in DATA_MD.read_text()  # the left-out column, as documented
    names = [c.name for c in columns_of(resource)]
    assert names == documented_columns(resource)
    assert schema_of(resource).names == names
    selected = rows_sql(resource).removeprefix("SELECT ").split(" FROM ")[0].split(", ")
    assert [s.removesuffix("::text") for s in selected] == names


def test_export_types_are_the_documented_ones():
    types = dict(zip(schema_of("posts").names, schema_of("posts").types, strict=True))
    assert types["id"] == pa.int64() and types["favorites_count"] == pa.int32()
    assert types["posted_at"] == pa.timestamp("us", tz="UTC") and types["posted_at_precise"] == DECIMAL
    assert types["label_ids"] == pa.list_(pa.int64()) and types["media_types"] == pa.list_(pa.string())
    assert types["is_pinned"] == pa.bool_() and types["payload"] == pa.string()
