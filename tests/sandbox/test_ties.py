"""The ``ties`` profile knob: dense accounts whose rows share timestamps, for cursor walks.

Without the knob nothing changes (every other test's data stays as it was); with it, posts
of one second share one ``postedAtPrecise`` and direct messages and notifications may put
many rows in one second, more than a page holds.
"""

from __future__ import annotations

from collections import Counter

ACCOUNT = 5301
DENSE = {"history_days": 0.001, "ties": True}


def _walk_posts(sandbox, account: int) -> list[dict]:
    """Every post by the upstream's own cursor (exact while postedAtPrecise is unique)."""
    rows, params = [], {"limit": 100}
    while True:
        body = sandbox.get(account, "/posts", **params).json()
        rows += body["list"]
        if not body["hasMore"]:
            return rows
        params["before_publish_time"] = body["tailMarker"]


def test_without_the_knob_posts_and_messages_never_share_a_timestamp(sandbox):
    sandbox.configure_account(ACCOUNT, history_days=0.001, posts=300, direct_messages=300)
    precise = [p["postedAtPrecise"] for p in _walk_posts(sandbox, ACCOUNT)]
    assert len(precise) > 250 and len(precise) == len(set(precise))
    # The one-message-a-second cap holds without ties.
    dates = [m["date"] for m in sandbox.get(ACCOUNT, "/messages/stats", limit=100).json()["items"]]
    assert len(dates) == len(set(dates))


def test_the_knob_changes_only_the_timestamps_of_posts(sandbox):
    sandbox.configure_account(ACCOUNT, history_days=0.001, posts=300)
    plain = sandbox.get(ACCOUNT, "/posts", limit=100).json()["list"]
    sandbox.configure_account(ACCOUNT, ties=True)
    tied = sandbox.get(ACCOUNT, "/posts", limit=100).json()["list"]
    assert {p["id"] for p in plain} == {p["id"] for p in tied}
    by_id = {p["id"]: p for p in tied}
    for post in plain:
        other = by_id[post["id"]]
        assert other["postedAtPrecise"] == post["postedAtPrecise"].split(".")[0] + ".000000"
        assert {k: v for k, v in other.items() if k != "postedAtPrecise"} == {
            k: v for k, v in post.items() if k != "postedAtPrecise"
        }


def test_dense_accounts_put_more_rows_than_a_page_in_one_second(sandbox):
    sandbox.configure_account(ACCOUNT, **DENSE, posts=3000, direct_messages=3000, notifications=3000)
    precise = Counter(p["postedAtPrecise"] for p in sandbox.get(ACCOUNT, "/posts", limit=100).json()["list"])
    assert max(precise.values()) > 10 and len(precise) > 1
    messages = sandbox.get(ACCOUNT, "/messages/stats", limit=100).json()["items"]
    assert max(Counter(m["date"] for m in messages).values()) > 10
    notes = sandbox.get(ACCOUNT, "/notifications", limit=100).json()["list"]
    assert max(Counter(n["createdAt"] for n in notes).values()) > 10
    ids = [n["id"] for n in notes]
    assert ids == sorted(ids, reverse=True)
    # Deterministic: the same request, the same bytes.
    assert sandbox.get(ACCOUNT, "/messages/stats", limit=100).content == sandbox.get(
        ACCOUNT, "/messages/stats", limit=100
    ).content


def test_posts_of_one_value_come_in_id_order(sandbox):
    sandbox.configure_account(ACCOUNT, **DENSE, posts=3000)
    desc = sandbox.get(ACCOUNT, "/posts", limit=100).json()["list"]
    keys = [(p["postedAtPrecise"], p["id"]) for p in desc]
    assert keys == sorted(keys, reverse=True)
    asc = sandbox.get(ACCOUNT, "/posts", limit=100, order="publish_date_asc").json()["list"]
    keys = [(p["postedAtPrecise"], p["id"]) for p in asc]
    assert keys == sorted(keys)
