"""/docs works offline: Swagger UI's files come from the API itself, each named with its
integrity hash, under a Content-Security-Policy that allows this origin only; in headless
Chromium with every other host blocked, the page renders every operation of the document."""

from __future__ import annotations

import base64
import hashlib
import re
import shutil
from urllib.parse import urlsplit

import httpx
import pytest

CHROMIUM = shutil.which("chromium")


def policy_of(answer: httpx.Response) -> dict[str, set[str]]:
    return {
        name: set(sources.split())
        for name, _, sources in (part.strip().partition(" ") for part in answer.headers["content-security-policy"].split(";"))
    }


def references(html: str) -> list[tuple[str, str | None]]:
    """Every ``src``/``href`` of the page, with its ``integrity`` (None when it has none)."""
    found = []
    for tag in re.findall(r"<(?:script|link)\b[^>]*>", html):
        url = re.search(r'\b(?:src|href)="([^"]*)"', tag)
        integrity = re.search(r'\bintegrity="([^"]*)"', tag)
        if url:
            found.append((url.group(1), integrity.group(1) if integrity else None))
    return found


def test_the_docs_page_references_no_other_host_and_its_files_match_their_hashes(api_process):
    api = api_process()
    page = httpx.get(f"{api.url}/docs")
    assert page.status_code == 200 and page.headers["content-type"] == "text/html; charset=utf-8"

    policy = policy_of(page)
    assert policy["default-src"] == {"'none'"} and policy["frame-ancestors"] == {"'none'"}
    for directive in ("script-src", "style-src", "connect-src"):
        assert policy[directive] == {"'self'"}, directive  # no CDN, no inline script or style
    assert policy["img-src"] == {"'self'", "data:"}
    assert not re.search(r"https?://", page.headers["content-security-policy"])

    refs = references(page.text)
    assert {url.rsplit("/", 1)[-1] for url, _ in refs} >= {"swagger-ui.css", "swagger-ui-bundle.js", "start.js"}
    assert "<script>" not in page.text and "http://" not in page.text and "https://" not in page.text
    for url, integrity in refs:
        if url.startswith("data:"):
            continue
        assert url.startswith("/") and not url.startswith("//"), url  # this origin
        assert integrity is not None, url
        served = httpx.get(f"{api.url}{url}")
        assert served.status_code == 200, url
        algorithm, _, digest = integrity.partition("-")
        assert base64.b64encode(hashlib.new(algorithm, served.content).digest()).decode() == digest, url


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (make test installs it as root)")
def test_chromium_offline_renders_every_operation_of_the_document(api_process):
    from playwright.sync_api import sync_playwright

    api = api_process()
    document = httpx.get(f"{api.url}/docs/openapi.json").json()
    operations = {
        (method.upper(), path) for path, item in document["paths"].items() for method in item if method != "parameters"
    }
    ours = urlsplit(api.url).netloc
    elsewhere: list[str] = []
    violations: list[str] = []

    def only_ours(route) -> None:
        if urlsplit(route.request.url).netloc == ours or route.request.url.startswith("data:"):
            route.continue_()
        else:  # no network but this API's
            elsewhere.append(route.request.url)
            route.abort()

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.route("**/*", only_ours)
            page.on("console", lambda message: violations.append(message.text)
                    if "Content Security Policy" in message.text or "integrity" in message.text else None)
            assert page.goto(f"{api.url}/docs").status == 200
            page.wait_for_selector(".opblock", timeout=30_000)
            rendered = {
                (block.locator(".opblock-summary-method").inner_text().strip(),
                 block.locator(".opblock-summary-path").get_attribute("data-path"))
                for block in page.locator(".opblock").all()
            }
            title = page.locator(".info .title").inner_text()
        finally:
            browser.close()

    assert elsewhere == [] and violations == []
    assert "Creator Relay API" in title
    assert rendered == operations
