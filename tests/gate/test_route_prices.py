"""docs/api-decisions.md prices every route the API serves (issue 29)."""

from __future__ import annotations

import re
from pathlib import Path

from app.asgi import create_app
from app.crypto.keys import generate_key
from app.settings import Settings

DECISIONS = Path(__file__).resolve().parents[2] / "docs" / "api-decisions.md"


def _priced() -> dict[tuple[str, str], str]:
    section = DECISIONS.read_text().split("## Prices per route", 1)[1].split("\n## ", 1)[0]
    priced = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[1] in {"GET", "POST"}:
            for path in re.findall(r"`([^`]+)`", cells[0]):
                priced[(cells[1], path)] = cells[2]
    return priced


def _served() -> set[tuple[str, str]]:
    app = create_app(Settings(database_url="postgresql://relay@127.0.0.1:1/relay", secret_keys=generate_key()))
    served = set()
    for route in app.routes:
        path = re.sub(r"\{(\w+):\w+\}", r"{\1}", route.path)  # /v1/{account_id:int} -> /v1/{account_id}
        for handler in route.route_handlers:
            served |= {(method, path) for method in handler.http_methods if method != "OPTIONS"}
    return served


def test_every_route_the_api_serves_has_a_documented_price() -> None:
    priced = _priced()
    missing = _served() - set(priced)
    assert not missing, f"routes without a price in docs/api-decisions.md: {sorted(missing)}"
    assert not set(priced) - _served(), "a priced route the API does not serve"


def test_gated_routes_cost_one_credit_and_the_ungated_ones_nothing() -> None:
    for (_, path), price in _priced().items():
        free = path == "/health" or path.startswith(("/docs", "/status"))
        assert price.startswith("0" if free else "1"), (path, price)
