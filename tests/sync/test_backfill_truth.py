"""A backfill over real HTTP leaves the store equal to the sandbox's ground truth."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY as REGISTRY_METRICS

from sync.cli import request_and_run
from sync.resources import EARNINGS_TYPES, REGISTRY, TIPS_SOURCES
from tests.sync.helpers import sandbox_truth, store_truth

pytestmark = pytest.mark.slow


def _assert_store_matches_truth(db, sandbox, account_id: int) -> None:
    now = int(sandbox.clock()["now"])
    for resource in REGISTRY:
        expected = sandbox_truth(sandbox, account_id, resource, 0, now)
        assert expected["count"] > 0, resource
        assert store_truth(db, account_id, resource, 0, now) == expected, resource


def test_backfill_of_every_resource_equals_the_sandbox_ground_truth(db, sandbox, sync_settings, new_account):
    account_id = new_account(earnings=4000, history_days=200)
    request_and_run(sync_settings, "backfill", [(account_id, r) for r in REGISTRY], None)
    _assert_store_matches_truth(db, sandbox, account_id)


def test_every_earnings_row_carries_the_type_and_tips_source_of_its_query(db, sandbox, sync_settings, new_account):
    account_id = new_account(earnings=3000, history_days=120)
    request_and_run(sync_settings, "backfill", [(account_id, "earnings")], None)
    now = int(sandbox.clock()["now"])
    for type_ in EARNINGS_TYPES:
        expected = sandbox_truth(sandbox, account_id, "earnings", 0, now, type=type_)
        got = store_truth(db, account_id, "earnings", 0, now, "AND type = %s", (type_,))
        assert got == expected, type_
    for source in TIPS_SOURCES:
        expected = sandbox_truth(sandbox, account_id, "earnings", 0, now, type="tips", tipsSource=source)
        got = store_truth(db, account_id, "earnings", 0, now, "AND type = 'tips' AND tips_source = %s", (source,))
        assert got == expected, source


def test_a_backfill_of_posts_sharing_publish_times_stores_every_post(db, sandbox, sync_settings, new_account):
    """~35 posts share each postedAtPrecise (the sandbox's ``ties``): the upstream's own
    pages end inside such groups, and the sync's cursor still reads every post (issue 17)."""
    account_id = new_account(posts=3000, history_days=0.001, ties=True)
    request_and_run(sync_settings, "backfill", [(account_id, "posts")], None)
    now = int(sandbox.clock()["now"])
    expected = sandbox_truth(sandbox, account_id, "posts", 0, now)
    assert expected["count"] >= 3000
    assert store_truth(db, account_id, "posts", 0, now) == expected


def test_a_backfill_vacuums_its_page_staging_tables_as_it_goes(db, sandbox, sync_settings, new_account):
    """Every ``RELAY_SYNC_STAGING_VACUUM_ROWS`` staged rows the process vacuums the staging
    tables itself (on Citus through the coordinator, on every shard); the store is as exact."""
    account_id = new_account(earnings=3000, history_days=120)
    before = _staging_vacuums()
    request_and_run(sync_settings.replace(sync_staging_vacuum_rows=500), "backfill", [(account_id, "earnings")], None)
    # Pages of up to 1,000 rows: between two vacuums at most 1,499 rows, so 3,000 make two at least.
    assert _staging_vacuums() - before >= 2
    now = int(sandbox.clock()["now"])
    assert store_truth(db, account_id, "earnings", 0, now) == sandbox_truth(sandbox, account_id, "earnings", 0, now)


def _staging_vacuums() -> float:
    return REGISTRY_METRICS.get_sample_value("relay_sync_staging_vacuums_total", {"outcome": "done"}) or 0.0
