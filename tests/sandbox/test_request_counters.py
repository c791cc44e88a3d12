"""The sandbox counts upstream requests per account and resource, and the refused ones."""

from sandbox.core.requests import resource_of


def test_resource_names_drop_the_account_and_number_segments():
    assert resource_of("/api/accounts/7/earnings/transactions") == "earnings/transactions"
    assert resource_of("/api/accounts/7/tracking-links/12/stats") == "tracking-links/{id}/stats"
    assert resource_of("/api/gifs/trending") == "gifs/trending"


def test_requests_are_counted_per_account_and_resource(sandbox):
    sandbox.get(31, "/earnings/transactions", limit=1)
    sandbox.get(31, "/earnings/transactions", limit=1, type="tips")
    sandbox.get(31, "/posts")
    sandbox.get(32, "/posts")

    assert sandbox.requests(31) == {
        "account_id": 31,
        "requests": {"earnings/transactions": 2, "posts": 1},
        "rate_limited": {},
    }
    totals = sandbox.requests()
    assert totals["requests"] == {"earnings/transactions": 2, "posts": 2}
    assert totals["accounts"] == 2


def test_requests_refused_by_the_rate_limit_are_counted_as_rate_limited(sandbox):
    sandbox.set_rate_limit(rps=0.01, burst=2)
    statuses = [sandbox.get(33, "/posts").status_code for _ in range(5)]

    assert statuses == [200, 200, 429, 429, 429]
    assert sandbox.requests(33)["requests"] == {"posts": 5}
    assert sandbox.requests(33)["rate_limited"] == {"posts": 3}


def test_counters_start_over_on_stats_reset(sandbox):
    sandbox.get(34, "/posts")
    sandbox._call("POST", "/_sandbox/stats/reset")

    assert sandbox.requests(34)["requests"] == {}
