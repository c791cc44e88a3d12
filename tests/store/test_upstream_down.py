"""Store routes keep answering from the store while the upstream hangs; live reads time out."""

from __future__ import annotations

import pytest

from app.settings import Settings


@pytest.fixture
def api_settings(settings: Settings, sandbox) -> Settings:
    return settings.replace(
        upstream_url=sandbox.url, upstream_read_timeout=5.0, upstream_live_deadline=1.0
    )


def test_a_covered_window_is_served_from_the_store_while_the_upstream_hangs(store_api):
    store_api.sandbox.configure_account(store_api.account_id, chargebacks=30, history_days=400)
    store_api.fill_snapshot("chargebacks", "/payouts/chargebacks")
    params = {"start_date": "2025-01-01 00:00:00", "marker": store_api.sandbox.epoch}
    expected = store_api.ok("/payouts/chargebacks", **params)["data"]
    store_api.sandbox.add_fault("timeout", count=50, seconds=30.0, account_id=store_api.account_id)

    stored = store_api.ok("/payouts/chargebacks", **params)
    assert stored["_meta"]["_cache"]["source"] == "store"
    assert stored["data"] == expected and expected["list"]

    fresh = store_api.get("/payouts/chargebacks", **params, fresh="true")
    assert fresh.status_code == 424
    assert fresh.json()["code"] == "upstream_timeout"
