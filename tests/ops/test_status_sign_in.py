"""GET /status in a browser (issue 29): without a key a browser gets an HTML sign-in page; an
admin key entered there opens a session (an HttpOnly, SameSite=Strict cookie limited to
/status, lasting RELAY_STATUS_SESSION_SECONDS) that ends when its key is revoked or expires,
when it is signed out, or at its end; each view through it counts in the organization's
minute window like a view with the key; the form refuses other sites, unknown keys and
non-admin keys; JSON clients keep their 401.

The real app in-process (``TestClient``) on the test database.
"""

from __future__ import annotations

import base64
import hashlib
import re

import pytest

from app.admin import service as admin
from app.gate.keys import generate_key
from app.gate.middleware import UNAUTHENTICATED
from app.routes.status import COOKIE, CROSS_SITE, NOT_ADMIN, SESSION_ENDED
from tests.fixtures.api import settle_ledger, usage
from tests.fixtures.net import clear_of_minute_turn

HTML = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
#: What Chromium sends with the form posted from the page itself (Origin is null under the
#: page's Referrer-Policy: no-referrer).
SAME_SITE = {**HTML, "Origin": "null", "Sec-Fetch-Site": "same-origin"}
#: What a browser without Fetch Metadata (Sec-Fetch-Site) sends with it.
SAME_SITE_OLDER = {**HTML, "Origin": "http://testserver.local"}


def sign_in(client, key: str, headers: dict[str, str] = SAME_SITE):
    return client.post("/status", data={"key": key}, headers=headers, follow_redirects=False)


def sessions(db) -> int:
    return db.execute("SELECT count(*) FROM status_sessions").fetchone()[0]


def is_sign_in_page(answer) -> bool:
    return '<form method="post" action="/status">' in answer.text and 'name="key" type="password"' in answer.text


@pytest.fixture
def org(make_org):
    return make_org("sign-in-org", limit_minute=50)


def test_a_browser_without_a_key_gets_the_sign_in_page_and_a_json_client_the_401(client_of, db, org):
    client = client_of()

    page = client.get("/status", headers=HTML)
    refused = client.get("/status")  # httpx sends Accept: */*

    assert page.status_code == 200 and is_sign_in_page(page)
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert refused.status_code == 401
    assert refused.json() == {"error": UNAUTHENTICATED, "code": "unauthenticated"}
    settle_ledger(client)
    assert usage(db, org).ledger == []  # nobody to count it for


def test_an_admin_key_opens_a_session_cookie_and_the_cookie_opens_the_page(client_of, db, org, make_key):
    client = client_of(status_session_seconds=600)

    signed_in = sign_in(client, make_key(org))
    page = client.get("/status", headers=HTML)  # the client sends the cookie back

    assert signed_in.status_code == 303 and signed_in.headers["location"] == "/status"
    cookie = signed_in.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=")
    # Attribute names and SameSite's value are case-insensitive (RFC 6265bis).
    attributes = dict((part.strip().lower().split("=") + [""])[:2] for part in cookie.split(";")[1:])
    assert "httponly" in attributes and attributes["samesite"] == "strict"
    assert attributes["path"] == "/status" and attributes["max-age"] == "600"
    assert "secure" not in attributes  # plain http, RELAY_STATUS_COOKIE_SECURE unset
    assert page.status_code == 200 and "Organization <strong>sign-in-org</strong>" in page.text
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert 'action="/status/sign-out"' in page.text
    # Stored: the digest of the cookie's value, never the value, ending when it says.
    token = cookie.split(";")[0].split("=", 1)[1]
    (stored, seconds), = db.execute(
        "SELECT token_hash, extract(epoch FROM expires_at - created_at) FROM status_sessions"
    ).fetchall()
    assert token.encode() not in bytes(stored) and 599 <= seconds <= 601
    # The sign-in and the view each count in the minute window, for no credit.
    settle_ledger(client)
    assert usage(db, org).ledger == [(303, 0, False), (200, 0, False)]
    assert db.execute("SELECT method, route FROM usage_ledger ORDER BY id").fetchall() == [
        ("POST", "/status"), ("GET", "/status")
    ]


def test_the_cookie_is_secure_over_https_or_with_the_setting(client_of, org, make_key):
    key = make_key(org)
    assert "Secure" in sign_in(client_of(status_cookie_secure=True), key).headers["set-cookie"].split("; ")
    https = client_of()
    https.base_url = "https://testserver.local"
    assert "Secure" in sign_in(https, key).headers["set-cookie"].split("; ")


def test_revoking_the_key_ends_its_session(client_of, db, org, make_key):
    client = client_of()
    key = make_key(org, full=True)
    sign_in(client, key.secret)
    assert client.get("/status", headers=HTML).status_code == 200

    admin.revoke_key(db, key.id)
    page = client.get("/status", headers=HTML)

    assert page.status_code == 200 and is_sign_in_page(page) and SESSION_ENDED.split(":")[0] in page.text
    assert page.headers["set-cookie"].startswith(f'{COOKIE}="";') or f"{COOKIE}=;" in page.headers["set-cookie"]
    settle_ledger(client)
    assert len(usage(db, org).ledger) == 2  # the refused view counted nothing


def test_an_ended_session_signs_in_again_and_a_json_client_gets_401(client_of, db, org, make_key):
    client = client_of()
    sign_in(client, make_key(org))
    db.execute("UPDATE status_sessions SET expires_at = now() - interval '1 second'")

    refused = client.get("/status")
    page = client.get("/status", headers=HTML)

    assert refused.status_code == 401 and refused.json()["code"] == "unauthenticated"
    assert page.status_code == 200 and is_sign_in_page(page)
    # Ended sessions are deleted as new ones open.
    assert sign_in(client, make_key(org)).status_code == 303 and sessions(db) == 1


def test_signing_out_ends_the_session(client_of, db, org, make_key):
    client = client_of()
    sign_in(client, make_key(org))
    cookie = client.cookies.get(COOKIE)

    signed_out = client.post("/status/sign-out", headers=SAME_SITE, follow_redirects=False)

    assert signed_out.status_code == 303 and sessions(db) == 0
    client.cookies.set(COOKIE, cookie, domain="testserver.local", path="/status")  # kept by hand
    assert is_sign_in_page(client.get("/status", headers=HTML))


@pytest.mark.parametrize("role", ["reader", "analytics", "messaging"])
def test_a_non_admin_key_opens_no_session(client_of, db, org, make_key, role):
    client = client_of()

    refused = sign_in(client, make_key(org, role))

    assert refused.status_code == 403 and is_sign_in_page(refused) and NOT_ADMIN in refused.text
    assert "set-cookie" not in refused.headers and sessions(db) == 0
    settle_ledger(client)
    assert usage(db, org).ledger == [(403, 0, False)]  # counted, as on the gate's routes


@pytest.mark.parametrize("key", ["", "not-a-key", generate_key().secret], ids=["empty", "malformed", "unknown"])
def test_an_unknown_or_malformed_key_opens_no_session(client_of, db, org, key):
    refused = sign_in(client_of(), key)

    assert refused.status_code == 401 and is_sign_in_page(refused) and "set-cookie" not in refused.headers
    assert sessions(db) == 0


def test_a_json_client_posting_a_bad_key_gets_the_json_error(client_of, org):
    refused = client_of().post("/status", data={"key": "nope"})

    assert refused.status_code == 401 and refused.json()["code"] == "unauthenticated"
    assert "'key'" in refused.json()["error"]


@pytest.mark.parametrize(
    "headers",
    [
        {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
        {"Sec-Fetch-Site": "same-site", "Origin": "http://other.testserver.local"},  # a sibling host
        {"Sec-Fetch-Site": "cross-site", "Origin": "null"},
        # Browsers without Fetch Metadata: judged by Origin.
        {"Origin": "https://evil.example"},
        {"Origin": "null"},
        {"Origin": "http://testserver.local.evil.example"},
    ],
)
def test_a_sign_in_from_another_site_is_refused(client_of, db, org, make_key, headers):
    client = client_of()

    refused = sign_in(client, make_key(org), {**HTML, **headers})

    assert refused.status_code == 403 and CROSS_SITE in refused.text and sessions(db) == 0
    settle_ledger(client)
    assert usage(db, org).ledger == []  # refused before the key was read


@pytest.mark.parametrize("headers", [SAME_SITE, SAME_SITE_OLDER, {}], ids=["fetch-metadata", "origin", "no-browser"])
def test_a_sign_in_from_the_page_itself_or_a_script_is_accepted(client_of, db, org, make_key, headers):
    assert sign_in(client_of(), make_key(org), headers).status_code == 303 and sessions(db) == 1


def test_a_sign_out_from_another_site_is_refused(client_of, db, org, make_key):
    client = client_of()
    sign_in(client, make_key(org))

    refused = client.post("/status/sign-out", headers={**HTML, "Sec-Fetch-Site": "cross-site"})

    assert refused.status_code == 403 and sessions(db) == 1


def test_views_through_a_session_fill_the_minute_window(client_of, db, make_org, make_key):
    client = client_of()
    org = make_org(limit_minute=3)
    clear_of_minute_turn()
    sign_in(client, make_key(org))  # 1

    views = [client.get("/status", headers=HTML) for _ in range(4)]

    assert [v.status_code for v in views] == [200, 200, 429, 429]
    refused = views[-1]
    assert is_sign_in_page(refused) and "rate limit exceeded" in refused.text
    assert 1 <= int(refused.headers["retry-after"]) <= 60


def test_the_pages_carry_a_strict_policy_that_allows_their_one_style(client_of, org, make_key):
    client = client_of()
    sign_in_page = client.get("/status", headers=HTML)
    sign_in(client, make_key(org))
    status_page = client.get("/status", headers=HTML)

    for page in (sign_in_page, status_page):
        headers = page.headers
        assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer" and headers["cache-control"] == "no-store"
        policy = dict(part.strip().split(" ", 1) for part in headers["content-security-policy"].split(";"))
        assert policy["default-src"] == "'none'" and policy["frame-ancestors"] == "'none'"
        assert policy["form-action"] == "'self'" and "script-src" not in policy
        (style,) = re.findall(r"<style>(.*?)</style>", page.text, re.S)
        assert policy["style-src"] == f"'sha256-{_sha256(style)}'"
        assert "<script" not in page.text and " style=" not in page.text


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
