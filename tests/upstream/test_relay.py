"""The live-route pieces on their own: next-page URLs, paging rules, payload shape checks."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from urllib.parse import parse_qsl, urlsplit

import pytest
from litestar import Request, get
from litestar.testing import create_test_client

from app.gate.shares import EXPENSIVE_READS, EXPORTS, LIVE_CALLS, Shares
from app.gate.state import CURRENT_GATE
from app.paging import LIST_PAGE, cursor_next, next_page_url, offset_next
from app.upstream.errors import UpstreamBadBody, UpstreamUnavailable
from app.upstream.relay import _unexpected_member, relay


def _next_page_for(query: str, changes) -> str | None:
    """Run next_page_url inside a real request with ``query``."""
    seen: dict = {}

    @get("/v1/1/things", sync_to_thread=False)
    def handler(request: Request) -> dict:
        seen["url"] = next_page_url(request, changes)
        return {}

    with create_test_client([handler]) as client:
        client.get("/v1/1/things" + query)
    return seen["url"]


def test_next_page_keeps_the_callers_filters_and_sets_the_paging_parameters() -> None:
    url = _next_page_for("?filter=unread&limit=5&offset=0", {"limit": 5, "offset": 5})
    assert urlsplit(url).path == "/v1/1/things"
    assert sorted(parse_qsl(urlsplit(url).query)) == [("filter", "unread"), ("limit", "5"), ("offset", "5")]


def test_next_page_adds_paging_parameters_the_caller_left_to_their_defaults() -> None:
    assert _next_page_for("", {"limit": 10, "offset": 10}) == "/v1/1/things?limit=10&offset=10"


def test_next_page_values_are_percent_encoded_and_come_back_unchanged() -> None:
    url = _next_page_for("?query=a%26b%20c", {"limit": 10, "end_date": "2025-01-02T03:04:05+00:00"})
    assert "end_date=2025-01-02T03%3A04%3A05%2B00%3A00" in url
    assert "query=a%26b%20c" in url
    query = dict(parse_qsl(urlsplit(url).query))
    assert query == {"query": "a&b c", "limit": "10", "end_date": "2025-01-02T03:04:05+00:00"}


def test_repeated_paging_parameter_is_written_once() -> None:
    assert _next_page_for("?limit=3&limit=4", {"limit": 3, "offset": 3}) == "/v1/1/things?limit=3&offset=3"


def test_no_next_page_without_changes() -> None:
    assert _next_page_for("?limit=3", None) is None


def test_offset_paging_advances_by_the_rows_received() -> None:
    assert offset_next(10, 20, [1] * 10, True) == {"limit": 10, "offset": 30}
    assert offset_next(10, 20, [1] * 7, True) == {"limit": 10, "offset": 27}


def test_offset_paging_ends_on_the_last_page_or_an_empty_one() -> None:
    assert offset_next(10, 20, [1] * 10, False) is None
    assert offset_next(10, 20, [], True) is None


def test_cursor_paging_takes_the_last_rows_member() -> None:
    rows = [{"id": 9}, {"id": 7}]
    assert cursor_next(2, rows, True, param="from_id", member="id") == {"limit": 2, "from_id": 7}
    assert cursor_next(2, rows, False, param="from_id", member="id") is None
    assert cursor_next(2, [{"id": None}], True, param="from_id", member="id") is None


@pytest.mark.parametrize(
    ("payload", "expect", "unexpected"),
    [
        ({"list": [], "hasMore": False}, LIST_PAGE, None),
        ({"list": []}, LIST_PAGE, "hasMore"),
        ({"list": None, "hasMore": True}, LIST_PAGE, "list"),
        ({"list": [], "hasMore": "yes"}, LIST_PAGE, "hasMore"),
        ([], LIST_PAGE, "object"),
        (None, {}, "object"),
        ({"pagination": {"count": 1}}, {"pagination.count": int, "pagination.total_count": int}, "pagination.total_count"),
        ({"pagination": {"count": "1"}}, {"pagination.count": int}, "pagination.count"),
        ({"pagination": 3}, {"pagination.count": int}, "pagination.count"),
    ],
)
def test_payload_shape_check_names_the_first_unexpected_member(payload, expect, unexpected) -> None:
    assert _unexpected_member(payload, expect) == unexpected


def test_cursor_paging_stops_on_a_row_that_is_not_an_object() -> None:
    assert cursor_next(2, [{"id": 9}, 7], True, param="from_id", member="id") is None


class _StubUpstream:
    """Answers every call with one fixed payload (shapes the sandbox never sends)."""

    def __init__(self, payload: object) -> None:
        self.payload = payload

    async def request_json(self, *args: object, **kwargs: object) -> object:
        return self.payload


@pytest.fixture
def gated() -> Iterator[Shares]:
    """What ``relay`` reads of the gated request it serves: its organization and the app's
    shares (it holds one live-call share during the call)."""
    shares = Shares({LIVE_CALLS: 1, EXPORTS: 1, EXPENSIVE_READS: 1})
    app = SimpleNamespace(state=SimpleNamespace(shares=shares))
    opened = CURRENT_GATE.set(SimpleNamespace(scope={"app": app}, result=SimpleNamespace(organization_id=7)))  # type: ignore[arg-type]
    try:
        yield shares
    finally:
        CURRENT_GATE.reset(opened)
    assert shares.held(LIVE_CALLS, 7) == 0  # given back, whatever the call's outcome


async def test_relay_turns_a_payload_of_another_shape_into_an_upstream_failure(gated) -> None:
    with pytest.raises(UpstreamBadBody) as caught:
        await relay(_StubUpstream({"list": None, "hasMore": True}), None, "/x", expect=LIST_PAGE)
    assert "'list'" in caught.value.reason
    assert isinstance(caught.value, UpstreamUnavailable)  # mapped to 424 like an outage


async def test_relay_returns_the_payload_untouched(gated) -> None:
    payload = {"list": [{"id": 1, "extra": {"kept": True}}], "hasMore": False, "more": 1}
    assert await relay(_StubUpstream(payload), None, "/x", expect=LIST_PAGE) is payload
