"""Injected upstream faults slow a backfill down but do not change what it stores."""

from __future__ import annotations

import pytest

from sync.cli import request_and_run
from sync.resources import REGISTRY
from tests.sync.helpers import sandbox_truth, store_truth

pytestmark = pytest.mark.slow


def test_backfill_through_5xx_429_timeouts_and_truncated_bodies_converges_to_the_truth(
    db, sandbox, sync_settings, new_account
):
    account_id = new_account(earnings=3000, history_days=150)
    settings = sync_settings.replace(upstream_read_timeout=0.5, sync_page_size=200)
    sandbox.set_fault_rates(
        error_rate=0.08, rate_limit_rate=0.05, timeout_rate=0.03, truncate_rate=0.08,
        retry_after=0, timeout_seconds=1.0,
    )
    # And one of each kind, for certain.
    for kind in ("status", "rate_limit", "timeout", "truncate"):
        sandbox.add_fault(kind, count=2, account_id=account_id, seconds=1.0, retry_after=0)

    request_and_run(settings, "backfill", [(account_id, r) for r in REGISTRY], None)

    faults = sandbox.stats()
    assert all(faults.get(f"faults.{k}", 0) > 0 for k in ("status", "rate_limit", "timeout", "truncate"))
    sandbox.set_fault_rates(error_rate=0, rate_limit_rate=0, timeout_rate=0, truncate_rate=0)
    now = int(sandbox.clock()["now"])
    for resource in REGISTRY:
        expected = sandbox_truth(sandbox, account_id, resource, 0, now)
        assert store_truth(db, account_id, resource, 0, now) == expected, resource
    (retries,) = db.execute(
        "SELECT sum(retries) FROM sync_runs WHERE account_id = %s", (account_id,)
    ).fetchone()
    assert retries > 0
