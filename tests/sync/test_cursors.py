"""Each cursor strategy (sync/cursors.py) against pages recorded from the sandbox: the query
it asks for at each position, and the position and oldest time it takes from each answer.

``recorded/pages.json`` holds passes the strategies walked against the sandbox (first pages,
the last one, empty windows, posts sharing one ``postedAtPrecise``), each page's rows cut down
to the members a strategy reads. No database, no sandbox: the pages are replayed."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from sync.cursors import PublishTimeCursor, PublishTimePosition
from sync.resources import REGISTRY, decode_page

PAGES = json.loads((Path(__file__).parent / "recorded" / "pages.json").read_text())


def _position(cursor, stored):
    """A recorded position (its stored JSON) as the strategy's Struct."""
    return None if stored is None else msgspec.convert(stored, cursor.position_type)


def _replay(page: dict):
    resource = REGISTRY[page["resource"]]
    body = decode_page(msgspec.json.encode(page["body"]), resource.rows_member)  # rows raw, as fetched
    return resource, body, resource.rows(body)


@pytest.mark.parametrize("page", PAGES, ids=[f"{p['resource']}: {p['case']}" for p in PAGES])
def test_the_strategy_asks_for_the_recorded_query(page):
    cursor = REGISTRY[page["resource"]].cursor
    query = cursor.request(page["lo"], page["hi"], _position(cursor, page["position"]), page["page_size"])
    assert query == page["params"]


@pytest.mark.parametrize("page", PAGES, ids=[f"{p['resource']}: {p['case']}" for p in PAGES])
def test_the_strategy_takes_the_next_position_and_the_oldest_time_from_the_page(page):
    resource, body, rows = _replay(page)
    cursor = resource.cursor
    following, oldest = cursor.advance(body, rows, page["lo"], page["hi"], _position(cursor, page["position"]))
    assert (following, oldest) == (_position(cursor, page["next"]), page["oldest"])
    # The position is stored as the JSON the pass recorded.
    assert msgspec.to_builtins(following) == page["next"]


def test_each_recorded_page_was_asked_at_the_position_the_page_before_gave():
    by_case = {(p["resource"], p["case"]): p for p in PAGES}
    for page in PAGES:
        name, number = page["case"].rsplit(" ", 1)
        before = by_case.get((page["resource"], f"{name} {int(number) - 1}"))
        assert page["position"] == (before["next"] if before else page["position"])
        assert (page["position"] is None) == (number == "1")


def test_a_posts_page_of_one_group_restarts_at_its_tail():
    """A variant of a recorded page: every post shares the tail's time, so the next page
    cannot start one microsecond after it without looping; its bound is the tail itself."""
    page = next(p for p in PAGES if p["case"] == "posts sharing one time, page 1")
    tail = page["body"]["tailMarker"]
    body = {**page["body"], "list": [{**row, "postedAtPrecise": tail} for row in page["body"]["list"]]}
    resource, decoded, rows = _replay({**page, "body": body})
    following, oldest = resource.cursor.advance(decoded, rows, page["lo"], page["hi"], None)
    assert following == PublishTimePosition(before=tail) and oldest == int(float(tail))


def test_a_posts_pass_without_a_lower_bound_starts_just_after_its_upper_bound():
    assert PublishTimeCursor().request(None, 1_767_225_600, None, 500)["before_publish_time"] == "1767225601.000000"
    assert PublishTimeCursor().request(None, 1, None, 500)["limit"] == 100  # the endpoint's maximum
