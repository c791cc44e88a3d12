"""A page's rows as COPY text for ``sync_page_rows`` (account, batch, payload).

The rows go to the server as they came: the sync hands raw JSON items (``msgspec.Raw``,
see ``Resource.decode_page``) and the worker neither decodes nor encodes a row; the
store's write-back hands decoded items, encoded once here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

_encode = msgspec.json.Encoder().encode


def copy_text(rows: Sequence[Any]) -> bytes:
    """Rows as COPY text: one compact JSON document per line.

    Rows are either raw JSON items as the upstream sent them (``msgspec.Raw``: no decoding,
    no re-encoding) or decoded values (encoded once here). JSON never holds a raw newline or
    tab inside a string, so the only COPY escape needed is doubling backslashes, done once
    over the whole buffer. Raw items may hold whitespace between their tokens (a
    pretty-printing upstream): those are compacted first.
    """
    if not rows:
        return b""
    if isinstance(rows[0], msgspec.Raw):
        text = b"\n".join(rows)
        if text.count(b"\n") != len(rows) - 1 or b"\r" in text or b"\t" in text:
            text = b"\n".join(_compact(row) for row in rows)
    else:
        text = b"\n".join(map(_encode, rows))
    return text.replace(b"\\", b"\\\\") + b"\n"


def _compact(row: Any) -> bytes:
    if isinstance(row, msgspec.Raw):
        return msgspec.json.format(bytes(row), indent=-1)
    return _encode(row)


def staged_text(text: bytes, account_id: int, batch: int) -> bytes:
    """``copy_text``'s lines with the account and the batch before each: a COPY into
    ``sync_page_rows`` (account_id, batch, p). Each line ends in the one newline
    ``copy_text`` leaves there."""
    if not text:
        return b""
    prefix = b"%d\t%d\t" % (account_id, batch)
    return prefix + text[:-1].replace(b"\n", b"\n" + prefix) + b"\n"
