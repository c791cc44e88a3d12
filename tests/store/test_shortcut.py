"""The route's shortcut (app.gate.shortcut): a store page asked with plain integer
parameters is answered past Litestar's parameter and response machinery, exactly as
Litestar answers the same request; anything else goes through Litestar."""

from __future__ import annotations

import pytest
from litestar import Litestar, get
from litestar.datastructures import CacheControlHeader
from litestar.enums import MediaType
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromPath, FromQuery
from litestar.routes import HTTPRoute

from app.gate import shortcut
from app.gate.route import GATED_PREFIX, gated_handlers
from app.params import UNIX_MAX
from tests.fixtures.api import error_of, settle_ledger, usage
from tests.fixtures.sandbox import fresh_account_id

#: Headers whose values differ between any two requests (ids, remaining counts).
MOVING = {"x-request-id", "x-ratelimit-remaining-minute", "x-ratelimit-remaining-day", "date"}


@pytest.fixture
def dense(api_caller):
    api_caller.sandbox.configure_account(api_caller.account_id, earnings=300, history_days=10)
    api_caller.store.fill_earnings()
    return api_caller


@pytest.fixture
def answered_here(monkeypatch) -> list[bytes]:
    """The query strings the shortcut answered."""
    seen: list[bytes] = []
    answer = shortcut.Shortcut.answer

    async def spy(self, scope, receive, send, arguments):
        seen.append(scope["query_string"])
        await answer(self, scope, receive, send, arguments)

    monkeypatch.setattr(shortcut.Shortcut, "answer", spy)
    return seen


def escaped(text: str) -> str:
    """Every character percent-encoded: the same value to Litestar, not plain to the shortcut."""
    return "".join(f"%{ord(c):02X}" for c in text)


def comparable(response) -> tuple:
    body = response.json()
    meta = {k: v for k, v in body["_meta"].items() if k != "_rate_limits"}
    headers = {k: v for k, v in response.headers.items() if k not in MOVING}
    return response.status_code, headers, body["data"], body.get("_pagination"), meta


def test_a_plain_marker_is_answered_here_exactly_as_litestar_answers_it(dense, answered_here):
    marker = str(dense.ok("/v1/{account}/earnings")["data"]["nextMarker"])

    plain = dense.get("/v1/{account}/earnings", f"marker={marker}")
    through_litestar = dense.get("/v1/{account}/earnings", f"marker={escaped(marker)}")

    assert answered_here == [b"", f"marker={marker}".encode()]
    assert plain.status_code == 200 and plain.json()["data"]["list"]
    assert comparable(plain) == comparable(through_litestar)
    assert plain.headers["content-type"] == "application/json"
    assert int(plain.headers["content-length"]) == len(plain.content)
    # On the books like any request: a ledger row each, one credit each.
    settle_ledger(dense.client)
    assert usage(dense.db, dense.org_id).ledger == [(200, 1, True)] * 3


@pytest.mark.parametrize("query", [
    "marker=-1", f"marker={UNIX_MAX + 1}", "marker=", "marker=1&marker=2", "marker=+5", "marker= 5",
    "marker=5&fresh=false", "marker=5&start_date=2025-12-01", "limit=5", "marker=1e3",
])
def test_anything_but_plain_integers_in_bounds_goes_through_litestar(dense, answered_here, query):
    dense.get("/v1/{account}/earnings", query)

    assert answered_here == []


def test_litestar_still_refuses_what_the_shortcut_leaves_to_it(dense):
    message = error_of(dense.get("/v1/{account}/earnings", "marker=-1"), 400, credits=1)
    assert "marker" in message


def test_errors_inside_the_handler_are_rendered_by_the_app(dense, answered_here, make_org, make_key,
                                                           connect_account):
    """A 402 raised after the shortcut read the arguments is the app's error answer."""
    spent, account = make_org(credits=0), fresh_account_id()
    connect_account(spent, account)

    response = dense.get(f"/v1/{account}/earnings", "marker=1700000000", key=make_key(spent))

    assert answered_here == [b"marker=1700000000"]
    assert error_of(response, 402) and response.headers["x-request-id"]


def plans(app: Litestar) -> dict[str, shortcut.Shortcut | None]:
    """The plan of every gated GET route, by path."""
    return {
        route.path: shortcut.Shortcut.plan(handler, frozenset(route.path_parameters))
        for route in app.routes if isinstance(route, HTTPRoute) and route.path.startswith(GATED_PREFIX)
        for handler in route.route_handlers if handler.http_methods == {"GET"}
    }


def test_store_routes_have_a_shortcut_and_routes_with_dependencies_have_none(api_app):
    found = plans(api_app)

    assert found["/v1/{account_id:int}/earnings"] is not None
    assert found["/v1/{account_id:int}/payouts/chargebacks"] is not None
    # A live route takes the upstream and the account as Litestar dependencies.
    assert found["/v1/{account_id:int}/earnings/overview"] is None


def _feed_plan(app: Litestar) -> shortcut.Shortcut:
    handler: HTTPRouteHandler = next(h for p, h in gated_handlers(app) if p == "/v1/{account_id:int}/earnings")
    plan = shortcut.Shortcut.plan(handler, frozenset({"account_id"}))
    assert plan is not None
    return plan


@pytest.mark.parametrize(("query", "marker"), [
    (b"", None), (b"marker=0", 0), (b"marker=0042", 42), (f"marker={UNIX_MAX}".encode(), UNIX_MAX),
])
def test_the_arguments_read_here(api_app, query, marker):
    arguments = _feed_plan(api_app).arguments({"path_params": {"account_id": 7}, "query_string": query})

    assert arguments is not None
    assert arguments["account_id"] == 7 and arguments["marker"] == marker
    assert arguments["fresh"] is False and arguments["start_date"] is None and arguments["type"] is None


@pytest.mark.parametrize("query", [b"marker", b"marker=5&", b"&marker=5", b"marker=5;x=1", b"marker=%35",
                                   b"marker=12345678901234567890", b"Marker=5"])
def test_queries_not_read_here(api_app, query):
    assert _feed_plan(api_app).arguments({"path_params": {"account_id": 7}, "query_string": query}) is None


def test_a_path_parameter_out_of_its_bounds_is_left_to_litestar(api_app):
    assert _feed_plan(api_app).arguments({"path_params": {"account_id": 0}, "query_string": b""}) is None


async def _after(response):  # an after_request hook: Litestar's to call
    return response


@pytest.mark.parametrize("options", [
    {}, {"response_headers": {"x-extra": "1"}}, {"cache_control": CacheControlHeader(max_age=5)},
    {"after_request": _after}, {"status_code": 201}, {"media_type": MediaType.TEXT},
], ids=["plain", "headers", "cache_control", "after_request", "status", "media_type"])
def test_a_route_whose_answer_litestar_shapes_has_no_shortcut(options):
    @get("/v1/{account_id:int}/thing", **options)
    async def thing(account_id: FromPath[int], marker: FromQuery[int | None] = None) -> dict:
        return {"account": account_id, "marker": marker}

    app = Litestar([thing])
    handler = next(h for route in app.routes for h in getattr(route, "route_handlers", ()) if h.handler_name == "thing")

    plan = shortcut.Shortcut.plan(handler, frozenset({"account_id"}))

    assert (plan is not None) == (not options)
