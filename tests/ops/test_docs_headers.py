"""/docs (Swagger UI) carries the HTML pages' security headers (issue 25): no framing, no
sniffing, no Referer, and a Content-Security-Policy that allows exactly what the page loads:
its scripts and style sheet from this origin (issue 27; tests/ops/test_docs_page.py)."""

from __future__ import annotations

import re


def policy_of(answer) -> dict[str, set[str]]:
    return {
        name: set(sources.split())
        for name, _, sources in (part.strip().partition(" ") for part in answer.headers["content-security-policy"].split(";"))
    }


def test_the_docs_page_has_the_security_headers_and_a_policy_for_what_it_loads(client_of):
    page = client_of().get("/docs")

    assert page.status_code == 200 and page.headers["content-type"] == "text/html; charset=utf-8"
    assert page.headers["x-frame-options"] == "DENY" and page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "no-referrer"
    policy = policy_of(page)
    assert policy["default-src"] == {"'none'"} and policy["frame-ancestors"] == {"'none'"}
    assert policy["connect-src"] == {"'self'"}  # "Try it out" calls this API only
    # Every script and style sheet the page names is this origin's, and so is all the policy allows.
    loaded = {
        "script-src": re.findall(r'<script src="([^"]+)"', page.text),
        "style-src": re.findall(r'<link rel="stylesheet" href="([^"]+)"', page.text),
    }
    for directive, urls in loaded.items():
        assert urls, directive
        assert all(url.startswith("/docs/assets/") for url in urls) and policy[directive] == {"'self'"}
    assert "<script>" not in page.text and "'unsafe-inline'" not in page.headers["content-security-policy"]


def test_the_schema_carries_the_headers_too(client_of):
    schema = client_of().get("/docs/openapi.json")

    assert schema.status_code == 200 and schema.headers["x-content-type-options"] == "nosniff"
    assert "/status" in schema.json()["paths"]
