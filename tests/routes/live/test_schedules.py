"""GET /v1/{account_id}/schedules/later/chat against the sandbox: limit, not paged."""

from __future__ import annotations

import pytest

LATER = "/v1/{account}/schedules/later/chat"


def test_default_is_the_next_10_scheduled_items(api_caller, sandbox):
    sandbox.configure_account(api_caller.account_id, scheduled_chats=3000)
    body = api_caller.ok(LATER)
    assert set(body) == {"data", "_meta"}  # the spec gives this route no paging
    assert body["data"] == api_caller.upstream("/schedules/later/chat", limit=10)
    assert len(body["data"]["list"]) == 10
    times = [item["publishDateTime"] for item in body["data"]["list"]]
    assert times == sorted(times)


def test_limit_50_is_the_maximum(api_caller, sandbox):
    sandbox.configure_account(api_caller.account_id, scheduled_chats=3000)
    assert api_caller.ok(LATER, limit=50)["data"] == api_caller.upstream("/schedules/later/chat", limit=50)


@pytest.mark.parametrize(("params", "named"), [({"limit": 0}, "limit"), ({"limit": 51}, "limit"), ({"limit": "x"}, "limit")])
def test_schedules_refuse_a_bad_value_naming_the_parameter(api_caller, params, named):
    assert named in api_caller.error(400, LATER, **params)
