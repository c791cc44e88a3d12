"""The official upstream SDK (PyPI ``onlyfans``, import ``onlyfansapi``) against a running
``relay serve``, with ``base_url`` and ``api_key`` set as its users set them. Its resource
methods name the upstream's paths (``/api/{account}/...``), which this API does not serve;
its own request method (``get``) at our paths reads our answers into its response types:
the earnings feed paged by ``nextMarker`` to the end, chargebacks by offset, the earnings
overview, the chats; our 401 becomes its ``AuthenticationError``. What differs is listed in
docs/api-decisions.md ("Official SDK")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from onlyfansapi import AuthenticationError, NotFoundError, OnlyFansAPI
from onlyfansapi.types import (
    ChargebackListResponse,
    ChatListResponse,
    StatisticGetOverviewResponse,
    TransactionListResponse,
)

from tests.client.running import WINDOW, stored_ids
from tests.fixtures.api import ApiProcess


def _sdk(api: ApiProcess, key: str) -> OnlyFansAPI:
    # No retries: a refusal is the answer under test, not something to wait out.
    return OnlyFansAPI(api_key=key, base_url=api.url, max_retries=0, timeout=30.0)


def _get(sdk: OnlyFansAPI, path: str, answer: type, **params):
    return sdk.get(path, cast_to=answer, options={"params": params})


@pytest.fixture
def filled(api_caller, relay) -> Iterator[tuple[OnlyFansAPI, int]]:
    """The SDK on a ``relay serve`` whose store holds the account's earnings and chargebacks."""
    account = api_caller.account_id
    api_caller.sandbox.configure_account(account, earnings=120, chargebacks=35, history_days=300)
    api_caller.store.fill_earnings()
    api_caller.store.fill_snapshot("chargebacks", "/payouts/chargebacks")
    sdk = _sdk(relay(), api_caller.key)
    yield sdk, account
    sdk.close()


def test_the_sdk_pages_the_feeds_to_the_end(filled, api_caller) -> None:
    sdk, account = filled
    # The earnings feed (the SDK's transactions type), by nextMarker alone, to the end.
    page = _get(sdk, f"/v1/{account}/earnings", TransactionListResponse, **WINDOW)
    earnings = list(page.data.list)
    while page.data.has_more:
        assert isinstance(page.data.next_marker, int) and page.api_pagination.next_page
        page = _get(sdk, f"/v1/{account}/earnings", TransactionListResponse, **WINDOW, marker=page.data.next_marker)
        earnings += page.data.list
    assert page.api_pagination is None and len(earnings) > 50
    assert sorted(row.id for row in earnings) == stored_ids(api_caller, "earnings")
    assert all(row.user.username for row in earnings)

    # Chargebacks by offset under the first page's snapshot marker; the SDK's type declares
    # neither hasMore nor _pagination, so the end is the page without a next one.
    path = f"/v1/{account}/payouts/chargebacks"
    page = _get(sdk, path, ChargebackListResponse, **WINDOW, limit=10)
    marker, rows = page.data.marker, list(page.data.list)
    while page.model_extra.get("_pagination"):
        page = _get(sdk, path, ChargebackListResponse, **WINDOW, limit=10, offset=len(rows), marker=marker)
        assert page.data.marker == marker
        rows += page.data.list
    assert sorted(str(row.id) for row in rows) == stored_ids(api_caller, "chargebacks")
    assert all(row.payment.id and row.payment_type for row in rows)


def test_the_sdk_reads_the_overview_and_the_chats(filled, api_caller) -> None:
    sdk, account = filled
    # The earnings overview is the SDK's statistics overview; its earning card is the chart's total.
    overview = _get(sdk, f"/v1/{account}/earnings/overview", StatisticGetOverviewResponse, **WINDOW)
    chart = _get(sdk, f"/v1/{account}/earnings/chart", object, **WINDOW)["data"]
    assert (overview.data.earning.total, overview.data.earning.gross) == (chart["total"], chart["gross"])
    assert overview.data.visitors.has_statistic is not None and overview.api_meta.api_credits.used == 1

    # A live route: the envelope is typed; the SDK's type wants `data` to be the list itself,
    # ours is {list, hasMore} (the spec), so the SDK hands `data` back as it came.
    chats = _get(sdk, f"/v1/{account}/chats", ChatListResponse, limit=5)
    assert chats.data["list"] == api_caller.upstream("/chats", limit=5)["list"]
    assert chats.api_pagination.next_page == f"/v1/{account}/chats?limit=5&offset=5"

    # Its resource methods call /api/{account}/..., which is not ours.
    with pytest.raises(NotFoundError) as refused:
        sdk.chats.list(str(account), limit="5")
    assert refused.value.body["code"] == "route_not_found"


def test_a_bad_key_is_the_sdks_authentication_error(filled) -> None:
    sdk, account = filled
    with sdk.with_options(api_key="not-a-key") as stranger, pytest.raises(AuthenticationError) as refused:
        _get(stranger, f"/v1/{account}/earnings", TransactionListResponse, **WINDOW)
    assert refused.value.status_code == 401 and refused.value.body["code"] == "unauthenticated"
    assert refused.value.response.headers["X-Request-ID"]
