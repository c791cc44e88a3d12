"""GET /status in a real browser: headless Chromium (Debian's ``chromium``, driven by
Playwright) loads the page from a ``relay serve`` process with an admin key; the rendered text
shows the synced account's coverage, lag, last run and backfill, the chart has one bar per
day, and a screenshot is taken (written to docs/status.png with RELAY_UPDATE_DOCS_SCREENSHOT=1,
so that a plain test run leaves the tree unchanged). A browser without a key signs in on the
page's form, under the page's Content-Security-Policy, and is sent back to the form when its
key is revoked."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import httpx
import pytest

from app.admin import service as admin
from app.routes.status import COOKIE
from sync.cli import run_until_idle
from tests.fixtures.api import auth

CHROMIUM = shutil.which("chromium")
DOCS_SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "status.png"


@pytest.fixture
def synced(db, sandbox, sync_settings, make_key, connect_account):
    """An organization with a sandbox account whose earnings and payouts were synced."""
    (org,) = db.execute(
        "INSERT INTO organizations (name, limit_minute, limit_day) VALUES ('status-demo', 100, 1000) RETURNING id"
    ).fetchone()
    account = 720_001
    connect_account(org, account)
    db.execute("UPDATE accounts SET label = 'main' WHERE id = %s", (account,))
    sandbox.configure_account(account, earnings=400, history_days=120)
    run_until_idle(sync_settings, [(account, "earnings"), (account, "payout_requests")])
    other = db.execute("INSERT INTO organizations (name, limit_minute, limit_day) VALUES ('other', 1, 1) RETURNING id").fetchone()[0]
    connect_account(other, 720_002)
    db.execute("INSERT INTO sync_tasks (account_id, resource) VALUES (720002, 'earnings')")
    return {"org": org, "account": account, "admin": make_key(org, full=True), "reader": make_key(org, "reader")}


def test_the_status_page_answers_admin_keys_only(api_process, synced):
    api = api_process()
    assert httpx.get(f"{api.url}/status").status_code == 401
    assert httpx.get(f"{api.url}/status", headers=auth(synced["reader"])).json()["code"] == "forbidden"
    page = httpx.get(f"{api.url}/status", headers=auth(synced["admin"].secret))
    assert page.status_code == 200 and page.headers["content-type"] == "text/html; charset=utf-8"  # one charset
    assert "720001" in page.text and "720002" not in page.text  # its own organization's only


def test_the_status_page_shows_the_organizations_schedules_with_their_last_run(api_process, synced, db):
    def schedule(org: int, cron: str) -> int:
        return db.execute(
            "INSERT INTO schedules (organization_id, account_id, resource, action, cron, next_run_at) "
            "VALUES (%s, NULL, 'earnings', 'reconcile', %s, '2026-02-01T00:00Z') RETURNING id", (org, cron),
        ).fetchone()[0]

    own = schedule(synced["org"], "17 3 * * *")
    db.execute("INSERT INTO schedule_runs (schedule_id, due_at, attempt, status, finished_at, rows_read) "
               "VALUES (%s, '2026-01-31T03:17Z', 1, 'succeeded', '2026-01-31T03:18Z', 1234)", (own,))
    other_org = db.execute("SELECT id FROM organizations WHERE name = 'other'").fetchone()[0]
    schedule(other_org, "41 5 * * *")
    api = api_process(RELAY_STATUS_CACHE_SECONDS="0")

    page = httpx.get(f"{api.url}/status", headers=auth(synced["admin"].secret)).text

    assert "<h2>Schedules</h2>" in page and "17 3 * * *" in page
    assert "succeeded, due 2026-01-31 03:17 UTC, 1,234 rows read" in page
    assert "all accounts, earnings" in page and "2026-02-01 00:00 UTC" in page  # what, and its next run
    assert "41 5 * * *" not in page  # another organization's schedule


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (make test installs it as root)")
def test_chromium_renders_the_status_page_with_coverage_lag_runs_backfill_and_the_chart(
    api_process, synced, db, tmp_path
):
    from playwright.sync_api import sync_playwright

    update_docs = os.environ.get("RELAY_UPDATE_DOCS_SCREENSHOT") == "1"
    screenshot = DOCS_SCREENSHOT if update_docs else tmp_path / "status.png"
    api = api_process()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(
                extra_http_headers=auth(synced["admin"].secret), viewport={"width": 1000, "height": 640}
            )
            response = page.goto(f"{api.url}/status")
            assert response.status == 200
            text = page.inner_text("body")
            rows = page.locator("tbody tr")
            cells = [rows.nth(i).locator("td").all_inner_texts() for i in range(rows.count())]
            bars = page.locator("svg rect").count()
            page.screenshot(path=str(screenshot), full_page=True)
        finally:
            browser.close()

    # The account's tasks: every resource enqueued at connection; two synced by the test.
    tasks = db.execute("SELECT count(*) FROM sync_tasks WHERE account_id = 720001").fetchone()[0]
    assert f"Organization status-demo: 1 accounts, {tasks} synced resources, 0 with errors" in text
    by_resource = {c[1]: c for c in cells}
    assert {"earnings", "payout_requests"} <= set(by_resource)
    start, end = db.execute(
        "SELECT coverage_start, coverage_end FROM sync_state WHERE account_id = 720001 AND resource = 'earnings'"
    ).fetchone()
    earnings = by_resource["earnings"]
    assert earnings[0] == "720001 (main)"
    assert earnings[2] == f"{start:%Y-%m-%d %H:%M} UTC .. {end:%Y-%m-%d %H:%M} UTC"
    assert earnings[3] != "-"  # a lag
    assert "succeeded" in earnings[4] and earnings[5] == "none"
    assert earnings[6].strip() in {"100%", "complete"}
    assert bars == 90
    total = db.execute(
        "SELECT sum(net) FROM earnings WHERE account_id = 720001 "
        "AND created_at >= date_trunc('day', %(end)s, 'UTC') - interval '89 days' "
        "AND created_at < date_trunc('day', %(end)s, 'UTC') + interval '1 day'",
        {"end": end},
    ).fetchone()[0]
    assert total > 0 and f"Net earnings, last 90 days (total {total:,.2f})" in text
    assert screenshot.stat().st_size > 10_000


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (make test installs it as root)")
def test_chromium_signs_in_with_an_admin_key_and_is_signed_out_when_it_is_revoked(api_process, synced, db):
    from playwright.sync_api import sync_playwright

    api = api_process()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            context = browser.new_context()
            page = context.new_page()
            refused: list[str] = []  # what the Content-Security-Policy blocked, if anything
            page.on("console", lambda message: refused.append(message.text) if "Content Security Policy" in message.text else None)

            page.goto(f"{api.url}/status")
            assert page.locator("input[name=key]").count() == 1
            page.fill("input[name=key]", synced["admin"].secret)
            with page.expect_navigation():
                page.click("button[type=submit]")
            signed_in_text = page.inner_text("body")
            margin = page.evaluate("getComputedStyle(document.body).margin")  # the style block applies
            (cookie,) = context.cookies()

            admin.revoke_key(db, synced["admin"].id)
            page.goto(f"{api.url}/status")
            after_revoking = page.inner_text("body")
        finally:
            browser.close()

    assert "Organization status-demo" in signed_in_text and "Sign out" in signed_in_text
    assert margin == "24px" and refused == []
    assert cookie["name"] == COOKIE and cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert cookie["path"] == "/status" and synced["admin"].secret not in cookie["value"]
    assert "your session has ended" in after_revoking and "Admin API key" in after_revoking
