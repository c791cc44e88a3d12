"""Analysts' row-level security on the Citus cluster (docs/scaling.md, layout B): the
per-account tables distributed by account, ``analyst_scopes`` a reference table. The same
migrations, policies and functions as on one PostgreSQL, and the same rows seen."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import psycopg
import pytest
from psycopg import sql

from app.admin.service import connect_account, create_organization
from app.db.migrate import migrate
from app.db.readonly import analyst_relations, grant_readonly
from tests.db.conftest import accounts_seen, drop_role, fill_every_analyst_table

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster_url(citus_empty_database) -> Iterator[str]:
    """A database on the cluster, migrated and distributed."""
    with citus_empty_database("relay_citus_rls") as url:
        migrate(url)  # layout B: app/db/citus.py
        yield url


@dataclass
class Roles:
    """Login roles (on Citus the coordinator reaches the workers as the querying role, so it
    must be able to log in): one organization's, every organization's, and one never
    registered that was granted SELECT all the same."""

    org: str
    everyone: str
    stranger: str

    def all(self) -> tuple[str, ...]:
        return self.org, self.everyone, self.stranger


@pytest.fixture
def roles(cluster_url) -> Iterator[Roles]:
    tag = uuid.uuid4().hex[:8]
    made = Roles(f"acme_bi_{tag}", f"ops_bi_{tag}", f"stranger_{tag}")
    with psycopg.connect(cluster_url, autocommit=True) as conn:
        try:
            yield made
        finally:
            for role in made.all():
                if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone():
                    drop_role(conn, role)


def _login(url: str, role: str) -> psycopg.Connection:
    return psycopg.connect(psycopg.conninfo.make_conninfo(url, user=role, password="pw"), autocommit=True)


def test_an_organizations_role_reads_exactly_its_rows_of_the_distributed_tables(cluster_url, roles, keyring):
    tag = roles.org.rsplit("_", 1)[1]
    with psycopg.connect(cluster_url, autocommit=True) as db:
        kinds = dict(db.execute("SELECT table_name::text, citus_table_type FROM citus_tables").fetchall())
        assert kinds["earnings"] == "distributed" and kinds["analyst_scopes"] == "reference"
        acme, other = (create_organization(db, f"{name}_{tag}") for name in ("acme", "other"))
        accounts = {acme: {81_001, 81_002}, other: {82_001, 82_002}}
        for org, ids in accounts.items():
            for account_id in sorted(ids):
                connect_account(db, org, account_id, f"token-{account_id}", keyring=keyring)
        every = accounts[acme] | accounts[other]
        fill_every_analyst_table(db, every)
        grant_readonly(db, roles.org, password="pw", organization_id=acme)
        grant_readonly(db, roles.everyone, password="pw")
        db.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD 'pw'").format(sql.Identifier(roles.stranger)))
        db.execute(sql.SQL("GRANT SELECT ON earnings TO {}").format(sql.Identifier(roles.stranger)))

        with _login(cluster_url, roles.org) as analyst, _login(cluster_url, roles.everyone) as operator, \
                _login(cluster_url, roles.stranger) as stranger:
            for relation in analyst_relations():
                assert accounts_seen(analyst, relation) == accounts[acme], relation
                assert accounts_seen(operator, relation) == every, relation
            assert accounts_seen(stranger, "earnings") == set()
            # Naming another organization's account finds nothing either (a one-shard query).
            (one_of_others,) = sorted(accounts[other])[:1]
            assert analyst.execute("SELECT count(*) FROM earnings WHERE account_id = %s",
                                   (one_of_others,)).fetchone() == (0,)
            # The worker plans the shard with the scope as a constant: no call per row.
            plan = "\n".join(r[0] for r in analyst.execute(
                "EXPLAIN (VERBOSE) SELECT * FROM earnings WHERE account_id = %s", (min(accounts[acme]),)))
            assert "ANY ('{81001,81002}'::bigint[])" in plan

            # A new account, and the scopes refreshed, in one transaction: two-phase commit on
            # the workers; accounts' NOTIFY trigger runs in the coordinator's own part, which
            # Citus does not prepare.
            with psycopg.connect(cluster_url, autocommit=True) as listener:
                listener.execute("LISTEN relay_gate")
                connect_account(db, acme, 81_003, "token-81003", keyring=keyring)
                assert [n.payload for n in listener.notifies(timeout=5, stop_after=1)] == ["accounts"]
            fill_every_analyst_table(db, {81_003})
            assert accounts_seen(analyst, "earnings") == accounts[acme] | {81_003}
            assert accounts_seen(stranger, "earnings") == set()
