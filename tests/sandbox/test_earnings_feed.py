"""The earnings transactions feed and chart over real HTTP."""

import pytest

from sandbox.core.checksum import checksum, money

ACCOUNT = 4101
TRANSACTIONS = "/earnings/transactions"


def page_all(sandbox, account_id, limit, **params):
    rows, cursor = [], {}
    while True:
        body = sandbox.get(account_id, TRANSACTIONS, limit=limit, **params, **cursor).json()
        rows += body["list"]
        if not body["hasMore"]:
            return rows
        cursor = {"marker": body["nextMarker"], "markerId": body["nextMarkerId"]}


def earnings_key(row, now_status=None):
    return f"{row['id']}|{row['status']}|{money(round(row['net'] * 100))}"


def test_transactions_answer_with_the_documented_shape(sandbox):
    body = sandbox.get(ACCOUNT, TRANSACTIONS, limit=3).json()
    assert set(body) == {"list", "marker", "hasMore", "nextMarker", "nextMarkerId"}
    row = body["list"][0]
    assert set(row) == {
        "id", "amount", "vatAmount", "taxAmount", "mediaTaxAmount", "net", "fee", "currency",
        "createdAt", "description", "status", "payoutPendingDays", "user",
    }
    assert row["createdAt"].endswith("+00:00") and row["createdAt"][10] == "T"
    cents = {k: round(row[k] * 100) for k in ("amount", "fee", "vatAmount", "taxAmount", "mediaTaxAmount", "net")}
    assert cents["net"] == cents["amount"] - cents["fee"] - cents["vatAmount"] - cents["taxAmount"] - cents["mediaTaxAmount"]
    assert "<a href=" in row["description"]
    assert row["status"] in ("loading", "done")


def test_same_request_twice_gives_the_same_body(sandbox):
    first = sandbox.get(ACCOUNT, TRANSACTIONS, limit=50, type="tips")
    assert first.content == sandbox.get(ACCOUNT, TRANSACTIONS, limit=50, type="tips").content


def test_marker_paging_never_repeats_rows_within_one_second(sandbox):
    # 6,000 rows over one hour: almost two rows per second on average, many ties.
    sandbox.configure_account(4102, earnings=6000, history_days=1 / 24)
    for order in ("desc", "asc"):
        rows = page_all(sandbox, 4102, 97, order=order, start_date="2025-12-01")
        ids = [r["id"] for r in rows]
        assert len(ids) == len(set(ids))
        truth = sandbox.truth(4102, "earnings")
        assert len(ids) == truth["count"]
    seconds = [r["createdAt"] for r in rows]
    assert len(set(seconds)) < len(seconds)  # the window really has ties


@pytest.mark.parametrize("params", [{}, {"type": "tips"}, {"type": "tips", "tipsSource": "story"}, {"type": "post"}])
def test_truth_agrees_with_paging_the_whole_window(sandbox, params):
    window = {"start_date": "2025-11-01 00:00:00", "end_date": "2025-12-15T00:00:00"}
    rows = page_all(sandbox, ACCOUNT, 500, **window, **params)
    truth = sandbox.truth(ACCOUNT, "earnings", start=window["start_date"], end=window["end_date"], **params)
    assert checksum(earnings_key(r) for r in rows) == {"count": truth["count"], "checksum": truth["checksum"]}


def test_types_partition_the_feed(sandbox):
    window = {"start": "2025-12-01", "end": "2025-12-31"}
    whole = sandbox.truth(ACCOUNT, "earnings", **window)["count"]
    parts = [sandbox.truth(ACCOUNT, "earnings", type=t, **window)["count"]
             for t in ("subscribes", "tips", "post", "chat_messages", "stream")]
    tips_parts = [sandbox.truth(ACCOUNT, "earnings", type="tips", tipsSource=s, **window)["count"]
                  for s in ("profile", "post_all", "chat", "stream", "story")]
    assert sum(parts) == whole and sum(tips_parts) == parts[1]


def test_advancing_the_clock_adds_rows(sandbox):
    before = sandbox.truth(ACCOUNT, "earnings")["count"]
    newest = sandbox.get(ACCOUNT, TRANSACTIONS, limit=1).json()["list"][0]
    sandbox.advance(2 * 86400)
    assert sandbox.truth(ACCOUNT, "earnings")["count"] > before
    assert sandbox.get(ACCOUNT, TRANSACTIONS, limit=1).json()["list"][0]["createdAt"] > newest["createdAt"]


def test_a_loading_earning_is_done_after_its_pending_days(sandbox):
    row = sandbox.get(ACCOUNT, TRANSACTIONS, limit=1).json()["list"][0]
    assert row["status"] == "loading"
    sandbox.advance(row["payoutPendingDays"] * 86400)
    window = {"start_date": row["createdAt"], "end_date": row["createdAt"]}
    again = next(r for r in sandbox.get(ACCOUNT, TRANSACTIONS, limit=100, **window).json()["list"] if r["id"] == row["id"])
    assert again["status"] == "done"


def test_page_5000_of_a_million_row_account_generates_as_many_rows_as_page_1(sandbox):
    sandbox.configure_account(4103, earnings=1_000_000)
    sandbox.control.post("/_sandbox/stats/reset")
    first = sandbox.get(4103, TRANSACTIONS, limit=200).json()
    first_cost = sandbox.stats()["earnings.keys"]
    sandbox.control.post("/_sandbox/stats/reset")
    start = sandbox.account(4103)["history_start"]
    deep_marker = start + (sandbox.epoch - start) // 1000  # about 1,000 rows from the oldest
    deep = sandbox.get(4103, TRANSACTIONS, limit=200, marker=deep_marker).json()
    deep_cost = sandbox.stats()["earnings.keys"]
    assert len(first["list"]) == len(deep["list"]) == 200
    assert deep_cost <= first_cost * 1.1


def test_bad_parameters_answer_400_naming_the_parameter(sandbox):
    for params, name in [({"limit": 5000}, "limit"), ({"type": "gifts"}, "type"),
                         ({"tipsSource": "chat"}, "tipsSource"), ({"start_date": "yesterday"}, "start_date"),
                         ({"order": "up"}, "order")]:
        response = sandbox.get(ACCOUNT, TRANSACTIONS, **params)
        assert response.status_code == 400
        assert response.json()["error"].startswith(name + ":")


def test_chart_totals_equal_the_sum_of_the_window_rows(sandbox):
    window = {"start_date": "2025-12-01 00:00:00", "end_date": "2025-12-20 23:59:59"}
    chart = sandbox.get(ACCOUNT, "/earnings/chart", by="tips_chat", **window).json()
    rows = page_all(sandbox, ACCOUNT, 1000, type="tips", tipsSource="chat", **window)
    assert len(chart["chartAmount"]) == 20  # daily buckets
    assert sum(p["count"] for p in chart["chartCount"]) == len(rows)
    assert round(chart["total"] * 100) == sum(round(r["net"] * 100) for r in rows)
    assert round(chart["gross"] * 100) == sum(round(r["amount"] * 100) for r in rows)
    assert isinstance(chart["delta"], float)
    monthly = sandbox.get(ACCOUNT, "/earnings/chart", start_date="2025-01-01").json()
    assert monthly["chartAmount"][0]["date"] == "2025-01-01T00:00:00+00:00" and len(monthly["chartAmount"]) == 13  # to the end of today (2026-01-01)
