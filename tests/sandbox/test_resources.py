"""Posts, payouts and campaigns over real HTTP: shapes, semantics and ground truth."""

from collections import Counter

import pytest

from sandbox.core.checksum import checksum, money

ACCOUNT = 4301


def page_offset(sandbox, path, key="list", **params):
    rows, offset = [], 0
    while True:
        body = sandbox.get(ACCOUNT, path, offset=offset, **params).json()
        rows += body[key]
        if not body["hasMore"]:
            return rows, body
        offset += len(body[key])


def test_posts_answer_with_the_documented_shape(sandbox):
    body = sandbox.get(ACCOUNT, "/posts", limit=5).json()
    assert set(body) == {"list", "hasMore", "headMarker", "tailMarker", "counters"}
    post = body["list"][0]
    for field in ("author", "responseType", "id", "postedAt", "postedAtPrecise", "text", "rawText",
                  "mediaCount", "tipsAmount", "media", "favoritesCount", "isPinned", "labelIds"):
        assert field in post
    assert post["postedAtPrecise"].split(".")[1].isdigit() and len(post["postedAtPrecise"].split(".")[1]) == 6
    assert "counters" not in sandbox.get(ACCOUNT, "/posts", counters="false").json()


@pytest.mark.parametrize("order", ["publish_date_desc", "publish_date_asc", "favorites_count_desc", "tips_summ_desc", "tips_summ_asc"])
def test_posts_cursor_pages_every_post_once_in_order(sandbox, order):
    cursor_name = "after_publish_time" if order.endswith("asc") else "before_publish_time"
    rows, cursor = [], {}
    while True:
        body = sandbox.get(ACCOUNT, "/posts", order=order, limit=13, counters="false", **cursor).json()
        rows += body["list"]
        if not body["hasMore"]:
            break
        cursor = {cursor_name: body["tailMarker"]}
    assert len(rows) == body_count(sandbox) and len({p["id"] for p in rows}) == len(rows)
    value = {"favorites_count_desc": "favoritesCount", "tips_summ_desc": "tipsAmount", "tips_summ_asc": "tipsAmount"}.get(order)
    if value:
        numbers = [float(str(p[value]).lstrip("$")) for p in rows]
        assert numbers == sorted(numbers, reverse=order.endswith("desc"))


def body_count(sandbox):
    return sandbox.get(ACCOUNT, "/posts").json()["counters"]["postsCount"]


def test_posts_filters_select_what_they_name(sandbox):
    photos = sandbox.get(ACCOUNT, "/posts", media_type="photos", limit=100).json()["list"]
    assert photos and all(any(m["type"] == "photo" for m in p["media"]) for p in photos)
    pinned = sandbox.get(ACCOUNT, "/posts", pinned="true", limit=100).json()["list"]
    assert all(p["isPinned"] for p in pinned)
    archived = sandbox.get(ACCOUNT, "/posts", label="archived", limit=100).json()["list"]
    assert archived and all(p["isArchived"] for p in archived)
    word = photos[0]["rawText"].split()[0]
    found = sandbox.get(ACCOUNT, "/posts", query=word.upper(), limit=100).json()["list"]
    assert found and all(word.lower() in p["rawText"].lower() for p in found)
    assert sandbox.get(ACCOUNT, "/posts", order="newest").status_code == 400
    assert sandbox.get(ACCOUNT, "/posts", limit=500).json()["list"].__len__() == 100


def test_posts_truth_counts_every_archive_state(sandbox):
    counters = sandbox.get(ACCOUNT, "/posts").json()["counters"]
    truth = sandbox.truth(ACCOUNT, "posts")
    assert truth["count"] == counters["postsCount"] + counters["archivedPostsCount"] + counters["privateArchivedPostsCount"]


def test_chargebacks_page_under_a_snapshot_marker_and_match_truth(sandbox):
    sandbox.configure_account(ACCOUNT, chargebacks=57)
    rows, body = page_offset(sandbox, "/payouts/chargebacks", limit=10)
    assert {"list", "marker", "hasMore"} <= set(body)
    row = rows[0]
    assert row["payment"]["status"] == "undo" and row["payment"]["createdAt"] <= row["createdAt"]
    keys = (f"{r['id']}|{r['createdAt']}|{r['payment']['id']}" for r in rows)
    assert checksum(keys) == {k: v for k, v in sandbox.truth(ACCOUNT, "chargebacks").items() if k in ("count", "checksum")}
    # Rows filed after the marker never shift a pinned snapshot.
    first = sandbox.get(ACCOUNT, "/payouts/chargebacks", offset=10).json()
    sandbox.advance(30 * 86400)
    pinned = sandbox.get(ACCOUNT, "/payouts/chargebacks", offset=10, marker=first["marker"]).json()
    assert pinned["list"] == first["list"]
    assert sandbox.get(ACCOUNT, "/payouts/chargebacks", offset=10).json()["list"] != first["list"]


def test_payout_requests_page_by_ten_and_settle_later(sandbox):
    rows, _ = page_offset(sandbox, "/payouts/requests")
    assert sandbox.get(ACCOUNT, "/payouts/requests").json()["list"].__len__() == 10
    keys = (f"{r['invoiceId']}|{r['state']}|{money(round(r['amount'] * 100))}" for r in rows)
    truth = sandbox.truth(ACCOUNT, "payout_requests")
    assert checksum(keys) == {"count": truth["count"], "checksum": truth["checksum"]}
    assert Counter(r["state"] for r in rows)["approved"] > 0


def test_campaign_overview_and_chart_derive_from_link_stats(sandbox):
    window = {"start_date": "2025-12-01 00:00:00", "end_date": "2025-12-31 23:59:59"}
    links, _ = page_offset(sandbox, "/tracking-links", limit=100)
    assert links and set(links[0]) == {"id", "name", "campaignCode", "url", "createdAt"}
    clicks = claims = 0
    daily_claims = Counter()
    for link in links:
        stats = sandbox.get(ACCOUNT, f"/tracking-links/{link['id']}/stats",
                            date_start="2025-12-01", date_end="2025-12-31").json()
        assert set(stats) == {"summary", "daily_metrics", "monthly_metrics"}
        clicks += stats["summary"]["clicks_total"]
        claims += stats["summary"]["subs_total"]
        for day in stats["daily_metrics"]:
            daily_claims[day["timestamp"]] += day["subs"]
    overview = sandbox.get(ACCOUNT, "/campaigns/overview", **window).json()["campaigns"]
    assert overview["clicks"]["total"] == clicks and overview["claims"]["total"] == claims
    assert overview["count"]["total"] == sum("2025-12-01" <= link["createdAt"][:10] <= "2025-12-31" for link in links)
    chart = sandbox.get(ACCOUNT, "/campaigns/chart", **window).json()
    assert len(chart["claims"]) == 31
    assert {p["date"]: p["count"] for p in chart["claims"] if p["count"]} == dict(+daily_claims)
    assert sandbox.get(ACCOUNT, "/tracking-links/1/stats").status_code == 404


def test_tracking_link_truth_matches_the_links_list(sandbox):
    links, _ = page_offset(sandbox, "/tracking-links", limit=7)
    truth = sandbox.truth(ACCOUNT, "tracking_links")
    assert checksum(f"{link['id']}|{link['createdAt']}" for link in links) == {"count": truth["count"], "checksum": truth["checksum"]}
