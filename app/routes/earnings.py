"""Earnings: the feed and chart, served from the store (live when the store does not
cover), and the dashboard overview, live from the upstream.

GET /v1/{account_id}/earnings           (api_earnings_list)
GET /v1/{account_id}/earnings/chart     (api_earnings_read_chart)
GET /v1/{account_id}/earnings/overview  (api_earnings_read_overview)
"""

from __future__ import annotations

from typing import Annotated, Literal

from litestar import Request
from litestar.di import NamedDependency
from litestar.params import FromQuery, Parameter

from app.answers.charts import EarningsChart, EarningsOverview
from app.answers.feeds import EarningsPage
from app.enums import ChartBy, EarningsType, TipsSource
from app.envelope import Envelope
from app.gate import EXPENSIVE_READS, ConnectedAccount, Upstream, v1_get
from app.gate.readers import windowed_reader
from app.paging import live_page, marker_next
from app.params import (
    CHART_WINDOW_MAX_DAYS,
    FEED_WINDOW_MAX_DAYS,
    DateWindow,
    bad_parameter,
    provide_date_window,
    unix_seconds,
    upstream_timestamp,
    whole_value,
)
from app.store import earnings
from app.store import earnings_feed as feeds
from app.store.source import StoreReader
from app.upstream import paths
from app.upstream.relay import relay

OverviewSection = Literal["earnings", "posts", "streams", "visitors", "massMessages", "story", "promo"]
Marker = Annotated[int | None, unix_seconds("Cursor, unix seconds: the previous page's nextMarker.")]
MarkerId = Annotated[
    str | None,
    Parameter(
        pattern=whole_value("[0-9]{1,30}"),
        description="Deprecated: a tie-breaker that next_page links handed out before pages "
        "stopped splitting seconds carried (only with marker); still honoured. "
        "marker alone is exact: no page ends inside a second.",
    ),
]


@v1_get(
    "/v1/{account_id:int}/earnings",
    permission="api_earnings_list",
    provides=windowed_reader(provide_date_window(FEED_WINDOW_MAX_DAYS)),
    tags=["earnings"],
    summary="Earnings feed (store)",
)
async def earnings_feed(
    request: Request,
    reader: StoreReader,
    marker: Marker = None,
    marker_id: MarkerId = None,
    type: FromQuery[EarningsType | None] = None,  # noqa: A002 - the spec's parameter name
    tips_source: FromQuery[TipsSource | None] = None,
) -> Envelope[EarningsPage]:
    """Transactions newest first, marker-paged; ``T`` in dates is read as a space.

    Rules: ``tips_source`` only with ``type=tips``; ``marker_id`` only with ``marker``;
    ``end_date`` must not be before ``start_date``. Each broken rule is a 400 naming the
    parameter.
    """
    if tips_source is not None and type != "tips":
        raise bad_parameter("tips_source", "only allowed with type=tips")
    if marker_id is not None and marker is None:
        raise bad_parameter("marker_id", "only allowed with marker")
    query = feeds.FeedQuery(reader.date_window.start, reader.date_window.end, type, tips_source, marker, marker_id)
    sourced = await feeds.feed(reader, query)
    # start_date is pinned to this page's value: a default ("two years ago") recomputed on a
    # later page would move. The marker alone is exact (no page ends inside a second); the
    # deprecated marker_id is still read, no longer handed out.
    following = marker_next(sourced.data, member="nextMarker", param="marker",
                            start_date=upstream_timestamp(reader.date_window.start))
    return sourced.envelope(request, following)


@v1_get(
    "/v1/{account_id:int}/earnings/chart",
    permission="api_earnings_read_chart",
    provides=windowed_reader(provide_date_window(CHART_WINDOW_MAX_DAYS)),
    share=EXPENSIVE_READS,
    tags=["earnings"],
    summary="Earnings chart (store)",
)
async def earnings_chart(request: Request, reader: StoreReader, by: FromQuery[ChartBy] = "total") -> Envelope[EarningsChart]:
    """Net amount and count series, totals and the delta against the previous window.

    Buckets are days for windows up to 90 days, calendar months beyond.

    Rules: ``end_date`` must not be before ``start_date``. The delta compares with the
    window of equal length just before (it starts no earlier than 1970-01-01).
    """
    sourced = await earnings.chart(reader, earnings.ChartQuery(by, reader.date_window.start, reader.date_window.end))
    return sourced.envelope(request)


@v1_get(
    "/v1/{account_id:int}/earnings/overview",
    permission="api_earnings_read_overview",
    dependencies={"window": provide_date_window(CHART_WINDOW_MAX_DAYS)},
    tags=["earnings"],
    summary="Earnings overview (live)",
)
async def earnings_overview(
    request: Request,
    upstream: Upstream,
    account: ConnectedAccount,
    window: NamedDependency[DateWindow],
    by: FromQuery[OverviewSection | None] = None,
) -> Envelope[EarningsOverview]:
    """Totals, deltas and charts per section; ``by`` narrows to one section (sent as given).

    Rules: ``end_date`` must not be before ``start_date``.
    """
    params = {**window.upstream(), "by": by}
    payload = await relay(upstream, account, paths.EARNINGS_OVERVIEW, params)
    return live_page(request, payload)


ROUTES = [earnings_feed, earnings_chart, earnings_overview]
