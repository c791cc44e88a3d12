"""The generated client (``clients/python/``) against a running ``relay serve``: it pages the
earnings feed by ``nextMarker`` and the chargebacks by offset to the end, reads a chart and a
live route into their typed answers, and gets ``ErrorBody`` for 401, 402 and 429."""

from __future__ import annotations

from pathlib import Path

from creator_relay_client import AuthenticatedClient
from creator_relay_client.api.chats import list_chats
from creator_relay_client.api.earnings import earnings_chart, earnings_feed
from creator_relay_client.api.payouts import chargebacks
from creator_relay_client.models import (
    AnswerChargebacksPage,
    AnswerChatsPage,
    AnswerEarningsChart,
    AnswerEarningsPage,
    CacheSource,
    ErrorBody,
)

from tests.client.running import WINDOW, stored_ids
from tests.fixtures.api import ApiProcess

ROOT = Path(__file__).resolve().parents[2]


def _client(api: ApiProcess, key: str) -> AuthenticatedClient:
    return AuthenticatedClient(base_url=api.url, token=key, timeout=30.0)


def test_the_client_pages_feeds_to_the_end_and_reads_a_chart_and_a_live_route(api_caller, relay) -> None:
    account = api_caller.account_id
    api_caller.sandbox.configure_account(account, earnings=120, chargebacks=35, history_days=300)
    api_caller.store.fill_earnings()
    api_caller.store.fill_snapshot("chargebacks", "/payouts/chargebacks")
    with _client(relay(), api_caller.key) as client:
        # The earnings feed, by nextMarker alone, to the end.
        page = earnings_feed.sync(account, client=client, **WINDOW)
        assert isinstance(page, AnswerEarningsPage) and page.field_meta.field_cache.source == CacheSource.STORE
        earnings = list(page.data.list_)
        while page.data.has_more:
            page = earnings_feed.sync(account, client=client, **WINDOW, marker=page.data.next_marker)
            assert isinstance(page, AnswerEarningsPage)
            earnings += page.data.list_
        assert len(earnings) > 50
        assert sorted(row.id for row in earnings) == stored_ids(api_caller, "earnings")

        # Chargebacks by offset, under the first page's snapshot marker, to the end.
        page = chargebacks.sync(account, client=client, **WINDOW, limit=10)
        assert isinstance(page, AnswerChargebacksPage)
        marker, rows = page.data.marker, list(page.data.list_)
        while page.data.has_more:
            page = chargebacks.sync(account, client=client, **WINDOW, limit=10, offset=len(rows), marker=marker)
            assert isinstance(page, AnswerChargebacksPage) and page.data.marker == marker
            rows += page.data.list_
        assert sorted(str(row.id) for row in rows) == stored_ids(api_caller, "chargebacks")

        # A chart: its series count the feed's rows.
        chart = earnings_chart.sync(account, client=client, **WINDOW)
        assert isinstance(chart, AnswerEarningsChart)
        assert sum(point.count for point in chart.data.chart_count) == len(earnings)

        # A live route, relayed from the upstream.
        chats = list_chats.sync(account, client=client, limit=5)
        assert isinstance(chats, AnswerChatsPage) and len(chats.data.list_) == 5
        upstream = api_caller.upstream("/chats", limit=5)["list"]
        assert [chat.to_dict() for chat in chats.data.list_] == upstream


def test_the_readme_example_runs(api_caller, relay) -> None:
    readme = ROOT.joinpath("README.md").read_text()
    example = readme.split("## Python client", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    names = {"KEY": api_caller.key, "ACCOUNT_ID": api_caller.account_id}
    exec(example.replace("http://127.0.0.1:8000", relay().url), names)
    assert isinstance(names["page"], AnswerEarningsPage)


def test_refusals_are_typed_error_bodies(api_caller, relay, make_org, make_key, connect_account) -> None:
    spent = make_org(credits=0)
    connect_account(spent, 8900)
    narrow = make_org(limit_minute=1)
    connect_account(narrow, 8901)
    api = relay()

    def feed(key: str, account: int):
        with _client(api, key) as client:
            return earnings_feed.sync_detailed(account, client=client, **WINDOW)

    unauthenticated = feed("not-a-key", api_caller.account_id)
    assert unauthenticated.status_code == 401 and isinstance(unauthenticated.parsed, ErrorBody)
    assert unauthenticated.parsed.code == "unauthenticated"

    no_credits = feed(make_key(spent), 8900)
    assert no_credits.status_code == 402 and isinstance(no_credits.parsed, ErrorBody)
    assert no_credits.parsed.code == "credits_exhausted"

    key = make_key(narrow)
    # The minute's one request, then refusals (three: a minute may turn between two requests).
    answers = [feed(key, 8901) for _ in range(3)]
    assert isinstance(answers[0].parsed, AnswerEarningsPage)
    limited = next(answer for answer in answers if answer.status_code != 200)
    assert limited.status_code == 429 and isinstance(limited.parsed, ErrorBody), limited.content
    assert limited.parsed.code == "rate_limited" and int(limited.headers["Retry-After"]) >= 1
    assert limited.headers["X-Request-ID"]
