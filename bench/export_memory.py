"""Peak memory of `relay export` over 1,000,000 earnings rows (embedded PostgreSQL, run by hand;
results in docs/benchmarks-history.md): python bench/export_memory.py"""
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg

from app.crypto.keyring import Keyring
from app.crypto.keys import generate_key
from app.db.embedded import start_embedded
from app.db.migrate import upgrade

with tempfile.TemporaryDirectory() as tmp:
    url = start_embedded(Path(tmp) / "pg")
    upgrade(url)
    with psycopg.connect(url, autocommit=True) as c:
        c.execute("INSERT INTO organizations (name, limit_minute, limit_day) VALUES ('o', 1, 1)")
        c.execute("INSERT INTO accounts (id, organization_id, upstream_token) VALUES (1, 1, %s)",
                  (Keyring([generate_key()]).encrypt("t"),))  # stored encrypted, as relay stores it
        c.execute("""INSERT INTO earnings (account_id, id, type, created_at, status, amount, net, fee, currency, payload)
            SELECT 1, lpad(i::text, 13, '0'), 'tips', '2025-01-01'::timestamptz + i * interval '20 seconds', 'done',
                   9.99, 7.99, 2.00, 'USD', jsonb_build_object('id', lpad(i::text, 13, '0'), 'amount', 9.99, 'net', 7.99,
                   'description', 'Tip from <a href="https://example.com/u123">u123</a>', 'status', 'done')
            FROM generate_series(1, 1000000) i""")
        c.execute("INSERT INTO sync_state (account_id, resource, coverage_start, coverage_end) VALUES (1, 'earnings', 'epoch', '2026-01-01')")
    env = {**os.environ, "RELAY_DATABASE_URL": url}
    for fmt in ("csv", "parquet"):
        t = time.time()
        r = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-m", "app.cli", "export", "earnings", "--account", "1",
                            "--format", fmt, "--output", f"{tmp}/x.{fmt}", "--no-progress"], env=env, capture_output=True, text=True)
        rss = [line for line in r.stderr.splitlines() if "Maximum resident" in line]
        print(fmt, r.returncode, round(time.time() - t, 1), "s", rss, os.path.getsize(f"{tmp}/x.{fmt}"), r.stderr[-300:] if r.returncode else "")
