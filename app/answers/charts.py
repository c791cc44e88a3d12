"""Overviews, charts, stats and the mark-read result: one object each, no rows to page."""

from __future__ import annotations

import msgspec

from app.answers.shared import Camel, Change, DatePoint, Day, DayCount, MoneyChange, NumericString

# --- earnings ---------------------------------------------------------------------------


class CountChange(msgspec.Struct, kw_only=True):
    """A counter and its percent change; the streams' count is a duration such as ``42m``."""

    total: int | str
    delta: float


class ContentSection(Camel, kw_only=True):
    """``posts``, ``streams``, ``massMessages`` and ``story``: activity and earnings."""

    has_statistic: bool
    count: CountChange
    views: Change
    earnings: MoneyChange
    chart_data: list[DatePoint]


class Subscriptions(msgspec.Struct, kw_only=True):
    new: Change
    renew: Change


class VisitorsSection(Camel, kw_only=True):
    has_statistic: bool
    count: Change
    visitors: Change
    subscriptions: Subscriptions
    #: Left out of the card shape (``by=visitors``).
    chart_data: list[DatePoint] | None = None


class PromoSection(Camel, kw_only=True):
    has_statistic: bool
    earnings: MoneyChange
    claims: Change
    chart_data: list[DatePoint]


class EarningsOverview(Camel, kw_only=True):
    """Every section, or the one ``by`` names."""

    earning: MoneyChange | None = None
    posts: ContentSection | None = None
    streams: ContentSection | None = None
    visitors: VisitorsSection | None = None
    mass_messages: ContentSection | None = None
    story: ContentSection | None = None
    promo: PromoSection | None = None


class EarningsChart(Camel, kw_only=True):
    """Net amount and transaction count per bucket (days up to 90 days, else months)."""

    chart_amount: list[DatePoint]
    chart_count: list[DatePoint]
    total: float
    gross: float
    #: Percent change of ``total`` against the window of equal length before.
    delta: float


# --- reach ---------------------------------------------------------------------------------


class VisitorTotals(msgspec.Struct, kw_only=True):
    total: float
    guests: NumericString
    users: NumericString
    subscribers: float


class TopCountries(Camel, kw_only=True):
    has_more: bool
    totals: VisitorTotals
    rows: list[dict[str, object]]


class TopDurationUsers(msgspec.Struct, kw_only=True):
    totals: VisitorTotals


class VisitorsChart(msgspec.Struct, kw_only=True):
    visitors: list[DatePoint]
    duration: list[DatePoint]


class CurrentTotal(msgspec.Struct, kw_only=True):
    current: NumericString
    delta: float


class ProfileVisitors(Camel, kw_only=True):
    is_available: bool
    has_stats: bool
    top_countries: TopCountries
    top_duration_users: TopDurationUsers
    chart: VisitorsChart
    total: CurrentTotal


# --- campaigns and tracking links --------------------------------------------------------


class Counter(msgspec.Struct, kw_only=True):
    total: int
    delta: int


class CampaignsSummary(Camel, kw_only=True):
    has_statistic: bool
    count: Counter
    claims: Counter
    clicks: Counter
    chart_data: list[DayCount]


class CampaignsOverview(msgspec.Struct, kw_only=True):
    campaigns: CampaignsSummary


class CampaignsChart(msgspec.Struct, kw_only=True):
    """Daily series over all links."""

    clicks: list[DayCount]
    claims: list[DayCount]


class LinkSummary(msgspec.Struct, kw_only=True):
    clicks_total: int
    subs_total: int
    revenue_total: NumericString
    spenders_total: int
    #: UTC with a ``Z`` suffix; null when the store does not know it.
    last_scanned_at: str | None


class LinkMetrics(msgspec.Struct, kw_only=True):
    """One day (``YYYY-MM-DD``) or month (its first day)."""

    timestamp: Day
    clicks: int | None
    subs: int
    revenue: NumericString
    spenders: int


class LinkStats(msgspec.Struct, kw_only=True):
    summary: LinkSummary
    daily_metrics: list[LinkMetrics]
    monthly_metrics: list[LinkMetrics]


# --- notifications ---------------------------------------------------------------------


class MarkReadResult(Camel, kw_only=True):
    #: Unread counts by category after marking.
    counters: dict[str, int]
    has_system_notifications: bool
    success: bool
