"""Store routes keep answering from the store while the upstream hangs; live reads time out."""

from __future__ import annotations

import pytest

from app.settings import Settings


@pytest.fixture
def api_settings(settings: Settings, sandbox) -> Settings:
    return settings.replace(
        upstream_url=sandbox.url, upstream_read_timeout=5.0, upstream_live_deadline=1.0
    )


def test_a_covered_window_is_served_from_the_store_while_the_upstream_hangs(api_caller):
    api_caller.sandbox.configure_account(api_caller.account_id, chargebacks=30, history_days=400)
    api_caller.store.fill_snapshot("chargebacks", "/payouts/chargebacks")
    params = {"start_date": "2025-01-01 00:00:00", "marker": api_caller.sandbox.epoch}
    expected = api_caller.ok("/v1/{account}/payouts/chargebacks", **params)["data"]
    api_caller.sandbox.add_fault("timeout", count=50, seconds=30.0, account_id=api_caller.account_id)

    stored = api_caller.ok("/v1/{account}/payouts/chargebacks", **params)
    assert stored["_meta"]["_cache"]["source"] == "store"
    assert stored["data"] == expected and expected["list"]

    fresh = api_caller.get("/v1/{account}/payouts/chargebacks", **params, fresh="true")
    assert fresh.status_code == 424
    assert fresh.json()["code"] == "upstream_timeout"
