"""Every SQL example of docs/data.md runs as an organization's analyst role and returns only
that organization's rows."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.db.conftest import as_role, fill_every_analyst_table
from tests.fixtures.store import write_page

DOC = Path(__file__).resolve().parents[2] / "docs" / "data.md"
SQL_BLOCK = re.compile(r"^```sql\n(.*?)^```", re.MULTILINE | re.DOTALL)


def doc_queries() -> list[str]:
    return [block.strip() for block in SQL_BLOCK.findall(DOC.read_text())]


def _fill_may_2025(db, accounts: set[int]) -> None:
    """Earnings in May 2025, a coverage holding the month and a failed posts sync, for each account."""
    may = datetime(2025, 5, 1, tzinfo=UTC)
    for account_id in sorted(accounts):
        rows = [{"id": f"{2_000_000_000_000 + i}", "amount": 10.0, "net": 8.0, "fee": 2.0, "currency": "USD",
                 "createdAt": (may + timedelta(days=i)).isoformat(), "status": "done", "user": {"id": 5}}
                for i in range(5)]
        write_page(db, "earnings", account_id, rows, type="tips", tips_source="chat")
        db.execute("INSERT INTO sync_state (account_id, resource, coverage_start, coverage_end, last_success_at)"
                   " VALUES (%s, 'earnings', %s, %s, now())", (account_id, may - timedelta(days=60), may + timedelta(days=40)))
        db.execute("INSERT INTO sync_state (account_id, resource, last_error, last_error_at)"
                   " VALUES (%s, 'posts', 'upstream answered 503', now())", (account_id,))


def test_the_doc_has_sql_examples():
    assert len(doc_queries()) >= 5


@pytest.mark.parametrize("query", doc_queries(), ids=lambda q: " ".join(q.split())[:60])
def test_a_doc_example_runs_as_an_organizations_role_and_reads_only_its_rows(db, two_organizations, query):
    orgs = two_organizations
    fill_every_analyst_table(db, orgs.every_account)
    _fill_may_2025(db, orgs.every_account)
    with as_role(db, orgs.a.role):
        cursor = db.execute(query)
        columns = [c.name for c in cursor.description]
        rows = cursor.fetchall()
    assert rows, "the example answers nothing on data that holds rows for it"
    if "account_id" in columns:
        assert {r[columns.index("account_id")] for r in rows} <= orgs.a.accounts
