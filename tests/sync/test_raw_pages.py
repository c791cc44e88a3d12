"""Pages decoded with their rows left raw, and staged as COPY text without re-encoding."""

from __future__ import annotations

import msgspec
import pytest

from app.store.staging import copy_text
from sync.cursors import SnapshotOffsetCursor
from sync.resources import decode_page


def test_rows_stay_raw_and_the_other_members_are_decoded():
    body = b'{"list": [{"id": "1", "t": "a\\\\b"}, {"id": "2"}], "hasMore": true, "nextMarker": 5}'
    page = decode_page(body, "list")
    assert page["hasMore"] is True and page["nextMarker"] == 5
    assert all(isinstance(row, msgspec.Raw) for row in page["list"])
    # Backslashes doubled for COPY text, one document per line.
    assert copy_text(page["list"]) == b'{"id": "1", "t": "a\\\\\\\\b"}\n{"id": "2"}\n'


def test_whitespace_inside_raw_items_is_compacted_so_each_row_stays_one_line():
    body = b'{"list": [\n  {\n\t"id": "1",\r\n "n": [1, 2]\n  },\n  {"id": "2"}\n]}'
    rows = decode_page(body, "list")["list"]
    text = copy_text(rows)
    assert text == b'{"id":"1","n":[1,2]}\n{"id":"2"}\n'
    assert [msgspec.json.decode(line) for line in text.splitlines()] == [{"id": "1", "n": [1, 2]}, {"id": "2"}]


def test_decoded_rows_are_still_accepted():
    assert copy_text([{"a": "x\\y"}]) == b'{"a":"x\\\\\\\\y"}\n'


def test_odd_bodies_decode_as_before_and_broken_ones_raise():
    assert decode_page(b"null", "list") is None
    assert decode_page(b'{"list": null, "x": 1}', "list") == {"list": None, "x": 1}
    with pytest.raises(msgspec.DecodeError):
        decode_page(b'{"list": [{"id": "1"}, {"id"', "list")


def test_cursors_read_the_time_of_a_raw_row():
    rows = decode_page(b'{"list": [{"createdAt": "2026-01-01T00:00:10+00:00"}], "hasMore": false}', "list")["list"]
    position, oldest = SnapshotOffsetCursor().advance({"hasMore": False}, rows, None, 0, None)
    assert position is None and oldest == 1767225610
