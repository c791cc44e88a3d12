"""Helpers of the live-resource sandbox tests (walking pages the way a client would)."""

from __future__ import annotations


def walk_offset_pages(sandbox, account_id: int, path: str, limit: int, key: str = "list", **params) -> list[dict]:
    """Every row of an offset-paged live list, following ``hasMore`` from offset 0."""
    rows: list[dict] = []
    offset = 0
    while True:
        response = sandbox.get(account_id, path, limit=limit, offset=offset, **params)
        assert response.status_code == 200, response.text
        body = response.json()
        page = body[key]
        assert len(page) <= limit
        rows += page
        if not body["hasMore"]:
            return rows
        assert len(page) == limit  # only the last page may be short
        offset += limit


def error_of(response) -> str:
    assert response.status_code == 400, response.text
    body = response.json()
    assert set(body) == {"error"}
    return body["error"]
