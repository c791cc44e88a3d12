"""An organization's analyst role reads its accounts' rows and none of another's, on every
per-account table and analyst view, however the query is written (row-level security)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from click.testing import CliRunner
from psycopg import sql

from app.admin.service import connect_account
from app.cli import main
from app.db.readonly import ANALYST_VIEWS, analyst_relations, analyst_tables, refresh_analyst_scopes
from app.db.synced import SyncedRow
from app.db.tenancy import POLICY, row_security_statements
from tests.db.conftest import accounts_seen, as_role, drop_role, fill_every_analyst_table, grant_readonly
from tests.fixtures.store import write_page


def _earning(i: int, at: datetime, net: str) -> dict:
    return {"id": f"{1_000_000_000_000 + i}", "amount": 10.0, "net": float(net), "fee": 2.0,
            "vatAmount": 0, "taxAmount": 0, "mediaTaxAmount": 0, "currency": "USD",
            "createdAt": at.isoformat(), "description": "", "status": "done",
            "payoutPendingDays": 7, "user": {"id": 5}}


@pytest.mark.parametrize("relation", analyst_relations())
def test_an_organizations_role_reads_its_accounts_rows_and_none_of_another_organizations(
    db, two_organizations, relation
):
    orgs = two_organizations
    fill_every_analyst_table(db, orgs.every_account)
    assert accounts_seen(db, relation) == orgs.every_account  # the owner reads them all
    for org in (orgs.a, orgs.b):
        with as_role(db, org.role):
            assert accounts_seen(db, relation) == org.accounts


def test_set_role_to_an_org_role_reads_its_earnings_and_coverage_only(db, two_organizations):
    a, b = two_organizations.a, two_organizations.b
    at = datetime(2025, 5, 2, 10, tzinfo=UTC)
    for account_id in a.accounts | b.accounts:
        net = "8.00" if account_id in a.accounts else "1000.00"
        write_page(db, "earnings", account_id, [_earning(i, at + timedelta(minutes=i), net) for i in range(3)],
                   type="subscribes")
        db.execute("INSERT INTO sync_state (account_id, resource, coverage_start, coverage_end, last_success_at)"
                   " VALUES (%s, 'earnings', %s, %s, now())", (account_id, at - timedelta(days=30), at))
    other = min(b.accounts)
    with as_role(db, a.role):
        assert db.execute("SELECT current_user").fetchone()[0] == a.role
        assert db.execute("SELECT count(*), sum(net) FROM earnings").fetchone() == (6, 48)
        # However it is written: naming the other account, through a view, in a subquery.
        assert db.execute("SELECT count(*) FROM earnings WHERE account_id = %s", (other,)).fetchone()[0] == 0
        assert db.execute("SELECT count(*) FROM earnings_net_per_day WHERE account_id = %s", (other,)).fetchone()[0] == 0
        assert db.execute(
            "SELECT count(*) FROM (SELECT account_id FROM earnings UNION ALL SELECT account_id FROM earnings_daily) x"
        ).fetchone()[0] == 6 + 2
        # A condition that fails on another organization's row never sees one: the policy
        # runs before any function that could leak (division raises, so it is not leakproof).
        assert db.execute(
            "SELECT count(*) FROM earnings WHERE 1 / (account_id - %s) <> 2", (other,)
        ).fetchone()[0] == 6
        coverage = db.execute("SELECT account_id, resource, coverage_end, lag FROM sync_coverage ORDER BY 1").fetchall()
        assert [(r[0], r[1], r[2]) for r in coverage] == [(i, "earnings", at) for i in sorted(a.accounts)]
        assert all(r[3] > timedelta(0) for r in coverage)
    db.execute("UPDATE sync_state SET coverage_start = NULL, coverage_end = NULL")
    with as_role(db, a.role):
        assert {r[0] for r in db.execute("SELECT lag FROM sync_coverage")} == {None}  # never covered: no lag
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            db.execute("SELECT cursor FROM sync_state")


def test_a_login_role_granted_the_org_role_reads_that_organization_and_cannot_ask_for_another(
    db, two_organizations, database_url
):
    a, b = two_organizations.a, two_organizations.b
    fill_every_analyst_table(db, two_organizations.every_account)
    person = f"alice_{uuid.uuid4().hex[:8]}"
    db.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD 'pw' IN ROLE {}").format(sql.Identifier(person), sql.Identifier(a.role)))
    try:
        url = psycopg.conninfo.make_conninfo(database_url, user=person, password="pw")
        with psycopg.connect(url, autocommit=True) as alice:
            assert accounts_seen(alice, "earnings") == a.accounts
            assert accounts_seen(alice, "sync_coverage") == a.accounts
            # The policies' function answers only for a role this session can become.
            assert set(alice.execute("SELECT analyst_account_ids(current_user)").fetchone()[0]) == a.accounts
            assert alice.execute("SELECT analyst_account_ids(%s)", (b.role,)).fetchone()[0] == []
            assert alice.execute("SELECT analyst_sees_all(%s)", (b.role,)).fetchone()[0] is False
    finally:
        drop_role(db, person)


def test_a_role_not_made_by_grant_readonly_reads_no_row_even_with_select(db, two_organizations):
    fill_every_analyst_table(db, two_organizations.every_account)
    stranger = f"stranger_{uuid.uuid4().hex[:8]}"
    db.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(stranger)))  # Citus reaches the workers as it
    db.execute(sql.SQL("GRANT SELECT ON earnings TO {}").format(sql.Identifier(stranger)))
    try:
        with as_role(db, stranger):
            assert accounts_seen(db, "earnings") == set()
    finally:
        drop_role(db, stranger)


def test_without_org_the_role_reads_every_organization_and_with_org_it_narrows(db, two_organizations):
    orgs = two_organizations
    fill_every_analyst_table(db, orgs.every_account)
    output = grant_readonly(orgs.a.role)
    assert "updated" in output and "every organization" in output
    with as_role(db, orgs.a.role):
        assert accounts_seen(db, "earnings") == orgs.every_account
    grant_readonly(orgs.a.role, "--org", orgs.b.name)
    with as_role(db, orgs.a.role):
        assert accounts_seen(db, "earnings") == orgs.b.accounts


def test_every_declared_table_has_the_policy_and_every_view_invokes_with_the_readers_rights(db):
    declared = {t.name for t in analyst_tables()}
    assert {t.__tablename__ for t in SyncedRow.__subclasses__()} <= declared
    secured = {name for (name,) in db.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_policy p ON p.polrelid = c.oid"
        " WHERE c.relrowsecurity AND NOT c.relforcerowsecurity AND p.polname = %s", (POLICY,))}
    assert declared <= secured
    # Every policy in the form a new table's migration writes (tenancy.row_security_statements).
    db.execute("CREATE TEMP TABLE probe (account_id bigint)")
    for statement in row_security_statements("probe"):
        db.execute(statement)
    forms = dict(db.execute(
        "SELECT c.relname, pg_get_expr(p.polqual, p.polrelid) FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid"
        " WHERE p.polname = %s", (POLICY,)).fetchall())
    assert set(forms.values()) == {forms["probe"]} and "current_analyst_account_ids()" in forms["probe"]
    invokers = {name for (name,) in db.execute(
        "SELECT relname FROM pg_class WHERE relkind = 'v' AND 'security_invoker=on' = ANY (reloptions)")}
    assert set(ANALYST_VIEWS) <= invokers


def _plan(db: psycopg.Connection, query: str) -> str:
    return "\n".join(r[0] for r in db.execute(f"EXPLAIN (VERBOSE) {query}"))


def test_the_owners_plans_carry_no_policy_and_an_analysts_carry_its_accounts_as_a_constant(db, two_organizations):
    """The API and the workers connect as the owner: row-level security adds nothing to
    their plans (the owner bypasses it; it is not forced). An analyst's plan holds its
    accounts as a constant, computed once while planning: no function runs per row, no
    subquery (what Citus refuses in a policy)."""
    a = two_organizations.a
    query = "SELECT * FROM earnings WHERE account_id = 1 AND created_at >= now() ORDER BY created_at, id LIMIT 50"
    with as_role(db, a.role):
        analyst_plan = _plan(db, query)
    ids = ",".join(map(str, sorted(a.accounts)))
    assert f"(earnings.account_id = ANY ('{{{ids}}}'::bigint[]))" in analyst_plan
    assert "analyst" not in analyst_plan and "InitPlan" not in analyst_plan and "SubPlan" not in analyst_plan
    assert "ANY" not in _plan(db, query)
    for table in analyst_tables():
        plan = _plan(db, sql.SQL("SELECT * FROM {}").format(sql.Identifier(table.name)).as_string(db))
        assert "analyst_" not in plan and "ANY" not in plan, table.name


def test_a_saved_plan_is_planned_again_when_its_roles_accounts_change(db, two_organizations, keyring):
    """A prepared statement's generic plan holds the accounts it was planned with; a change
    of the scopes plans it again (the refresh rewrites the folded functions' catalog rows;
    connecting an account changes nothing else the plan depends on)."""
    a = two_organizations.a
    fill_every_analyst_table(db, two_organizations.every_account | {9999})
    db.execute("SET plan_cache_mode = force_generic_plan")
    with as_role(db, a.role):
        db.execute("PREPARE seen AS SELECT DISTINCT account_id FROM earnings")
        assert {r[0] for r in db.execute("EXECUTE seen")} == a.accounts
    connect_account(db, a.name, 9999, "token-9999", keyring=keyring)
    with as_role(db, a.role):
        assert {r[0] for r in db.execute("EXECUTE seen")} == a.accounts | {9999}


def test_an_account_connected_later_is_read_by_its_organizations_role_at_once(db, two_organizations, keyring):
    a = two_organizations.a
    fill_every_analyst_table(db, two_organizations.every_account | {9999})
    with as_role(db, a.role):
        assert accounts_seen(db, "earnings") == a.accounts
    connect_account(db, a.name, 9999, "token-9999", keyring=keyring)
    with as_role(db, a.role):
        assert accounts_seen(db, "earnings") == a.accounts | {9999}
    assert refresh_analyst_scopes(db) is False  # nothing left to copy: nothing written


def test_an_unknown_organization_is_refused_and_no_role_is_made(db, database_url, monkeypatch):
    monkeypatch.setenv("RELAY_DATABASE_URL", database_url)
    role = f"analysts_{uuid.uuid4().hex[:8]}"
    result = CliRunner().invoke(main, ["db", "grant-readonly", role, "--org", "no-such-org"])
    assert result.exit_code != 0 and "no organization 'no-such-org'" in result.output
    assert db.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone() is None
