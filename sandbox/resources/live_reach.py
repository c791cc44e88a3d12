"""Profile visitors (live only): visitor totals, a per-country ranking and daily charts.

Built from the daily activity of :mod:`sandbox.resources.live_common` (the same visitors
the earnings overview's visitors card counts). ``guests``/``users`` and ``total.current``
are numeric strings, as the upstream sends them.
"""

from __future__ import annotations

from litestar import get

from app.upstream import paths
from sandbox.core.params import enum_param, int_param, window
from sandbox.core.rng import Rng, derive_key
from sandbox.core.timefmt import iso
from sandbox.domain.charts import buckets, delta, is_daily
from sandbox.resources.live_common import activity_sums
from sandbox.state import SandboxState

BY = ("total", "guests", "users", "subscribers")
DEFAULT_TOP = 10  # what limit=0 selects
MAX_TOP = 100
COUNTRIES = (
    ("US", "United States"), ("GB", "United Kingdom"), ("CA", "Canada"), ("AU", "Australia"),
    ("DE", "Germany"), ("FR", "France"), ("ES", "Spain"), ("IT", "Italy"), ("NL", "Netherlands"),
    ("SE", "Sweden"), ("NO", "Norway"), ("PL", "Poland"), ("BR", "Brazil"), ("MX", "Mexico"),
    ("AR", "Argentina"), ("JP", "Japan"), ("KR", "South Korea"), ("IN", "India"), ("ZA", "South Africa"),
    ("NZ", "New Zealand"), ("IE", "Ireland"), ("CH", "Switzerland"), ("AT", "Austria"), ("BE", "Belgium"),
    ("PT", "Portugal"), ("DK", "Denmark"), ("FI", "Finland"), ("CZ", "Czechia"), ("RO", "Romania"),
    ("PH", "Philippines"),
)
KINDS = ("guests", "users", "subscribers")


def _totals(guests: int, users: int, subscribers: int) -> dict:
    # Upstream quirk kept on purpose: guests and users are numeric strings, the rest numbers.
    return {"total": guests + users + subscribers, "guests": str(guests), "users": str(users),
            "subscribers": subscribers}


def country_split(seed: int, account_id: int, sums: dict[str, int]) -> list[tuple[str, str, dict[str, int]]]:
    """Each visitor kind's total shared out over the countries by the account's fixed
    weights (largest remainder, so the rows add up exactly to the totals)."""
    key = derive_key(seed, account_id, "live.visitors.countries")
    weights = [[(Rng(key, c * 4 + k).random() ** 3) for k in range(len(KINDS))] for c in range(len(COUNTRIES))]
    per_country = [dict.fromkeys(KINDS, 0) for _ in COUNTRIES]
    for k, kind in enumerate(KINDS):
        total_weight = sum(w[k] for w in weights)
        shares = [sums[kind] * w[k] / total_weight for w in weights]
        floors = [int(s) for s in shares]
        left = sums[kind] - sum(floors)
        for c in sorted(range(len(COUNTRIES)), key=lambda c: floors[c] - shares[c])[:left]:
            floors[c] += 1
        for c, value in enumerate(floors):
            per_country[c][kind] = value
    return [(code, name, counts) for (code, name), counts in zip(COUNTRIES, per_country, strict=True)]


@get(paths.route(paths.REACH_PROFILE_VISITORS), sync_to_thread=False)
def profile_visitors(
    account_id: int,
    sandbox: SandboxState,
    now: int,
    start_date: str | None = None,
    end_date: str | None = None,
    by: str | None = None,
    limit: str | None = None,
) -> dict:
    ranking = enum_param("by", by, BY, "total")
    # 0 selects the default; larger values are capped, as the upstream documents.
    top = min(int_param("limit", limit, DEFAULT_TOP, 0), MAX_TOP) or DEFAULT_TOP
    lo, hi = window(start_date, end_date, now)
    sums = activity_sums(sandbox, account_id, lo, hi, now)
    prev = activity_sums(sandbox, account_id, lo - (hi - lo + 1), lo - 1, now)
    visitors = sums["guests"] + sums["users"] + sums["subscribers"]
    prev_visitors = prev["guests"] + prev["users"] + prev["subscribers"]

    countries = [row for row in country_split(sandbox.seed, account_id, sums) if sum(row[2].values())]
    score = (lambda c: sum(c.values())) if ranking == "total" else (lambda c: c[ranking])
    countries.sort(key=lambda row: (-score(row[2]), row[0]))
    rows = [{"countryCode": code, "countryName": name, **_totals(c["guests"], c["users"], c["subscribers"])}
            for code, name, c in countries[:top]]

    chart_visitors, chart_duration = [], []
    for label, first, last in buckets(lo, hi, is_daily(lo, hi)):
        part = activity_sums(sandbox, account_id, first, last, now)
        chart_visitors.append({"date": iso(label), "count": part["guests"] + part["users"] + part["subscribers"]})
        chart_duration.append({"date": iso(label), "count": part["duration"]})
    # Time on profile by kind of visitor: the day's seconds split like its visitors.
    duration_by_kind = [sums["duration"] * sums[kind] // max(1, visitors) for kind in KINDS]
    return {
        "isAvailable": True,
        "hasStats": visitors > 0,
        "topCountries": {
            "hasMore": len(countries) > top,
            "totals": _totals(sums["guests"], sums["users"], sums["subscribers"]),
            "rows": rows,
        },
        "topDurationUsers": {"totals": _totals(*duration_by_kind)},
        "chart": {"visitors": chart_visitors, "duration": chart_duration},
        "total": {"current": str(visitors), "delta": delta(visitors, prev_visitors)},
    }


ROUTES = [profile_visitors]
