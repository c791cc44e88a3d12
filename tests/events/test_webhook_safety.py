"""Webhooks safe by construction (docs/events.md, "Where deliveries go"): ``relay webhooks add``
refuses a URL that breaks a rule or points at a non-public address; the dispatcher checks
every address it connects to (DNS answers included), follows no redirect, uses no proxy from
the environment, reads a bounded answer, and records any failure of one endpoint on its
delivery log (retried, then disabled) while the others keep receiving."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket

import httpx
import pytest
from click.testing import CliRunner
from standardwebhooks.webhooks import Webhook

from app.cli import main
from app.events.webhooks.addresses import RefusedURL, checked_url, non_public, refused_now
from app.events.webhooks.signing import new_secret
from app.events.webhooks.transport import CheckedTransport, PublicAddressBackend, RefusedAddress
from tests.events.helpers import deliver_until_idle
from tests.events.receiver import Receiver
from tests.fixtures.database import TEST_KEYS_ENV

BIG = 64 * 1024 * 1024

# --- the URL rules ---------------------------------------------------------------------------

REFUSED_URLS = {
    "http://127.0.0.1:99999/x": "Port out of range 0-65535",
    "http://[::1": "Invalid IPv6 URL",
    "http://hooks.example.com/a\r\nX-Injected: 1": "control or space character '\\r' at position 26",
    "http://hooks.example.com/\n": "control or space character '\\n'",
    "http://hooks.example.com/\x00": "control or space character '\\x00'",
    "http://hooks example.com/": "control or space character ' '",
    "ftp://hooks.example.com/": "must be http:// or https://",
    "http:///hook": "has no host",
    "http://hooks.example.com:0/": "port must be from 1 to 65535",
    "http://hooks.example.com:+80/": "Port could not be cast to integer value",
    "http://%31%32%37.0.0.1/": "is not a DNS name or an IP address",
    "http://0177.0.0.1/": "Invalid IPv4 address",  # octal: refused by httpx
    "https://hooks.example.com/" + "a" * 2048: "longer than 2048 characters",
}


@pytest.mark.parametrize("url", list(REFUSED_URLS))
def test_a_url_breaking_a_rule_is_refused_with_the_rule(url):
    with pytest.raises(RefusedURL) as refused:
        checked_url(url)
    assert REFUSED_URLS[url] in str(refused.value)


@pytest.mark.parametrize("url", ["https://hooks.example.com/relay?source=cr", "http://hooks.example.com:8080/h",
                                 "https://[2606:4700::1111]:8443/h", "https://bücher.example/h", "HTTPS://Example.COM"])
def test_a_well_formed_http_url_is_accepted(url):
    assert checked_url(url).scheme in {"http", "https"}


# --- the address rule ------------------------------------------------------------------------

NON_PUBLIC = {
    "127.0.0.1": "loopback", "::1": "loopback", "0.0.0.0": "unspecified", "::": "unspecified",
    "10.1.2.3": "private", "172.16.0.1": "private", "172.31.255.254": "private", "192.168.0.10": "private",
    "169.254.169.254": "link-local", "fe80::1": "link-local", "fd12:3456::1": "private", "fec0::1": "private",
    "100.64.0.1": "not globally routable", "224.0.0.1": "multicast", "ff02::1": "multicast",
    "::ffff:127.0.0.1": "loopback (127.0.0.1 inside", "::ffff:169.254.169.254": "link-local (169.254.169.254 inside",
    "64:ff9b::a00:1": "private (10.0.0.1 inside", "2002:c0a8:1::": "private (192.168.0.1 inside",
    "::7f00:1": "reserved",
}


@pytest.mark.parametrize("address", list(NON_PUBLIC))
def test_a_non_public_address_is_named_for_what_it_is(address):
    assert non_public(ipaddress.ip_address(address)).startswith(NON_PUBLIC[address])


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"])
def test_a_public_address_passes(address):
    assert non_public(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize("host", ["0x7f000001", "2130706433", "127.1", "localhost"])
def test_other_spellings_of_loopback_are_refused_as_they_resolve(host):
    assert "is not a public address: loopback" in refused_now(checked_url(f"http://{host}:8080/x"))


# --- relay webhooks add ----------------------------------------------------------------------


def _add(database_url: str, org: str, url: str, allow_private: bool):
    env = {"RELAY_DATABASE_URL": database_url, **TEST_KEYS_ENV,
           "RELAY_WEBHOOK_ALLOW_PRIVATE_ADDRESSES": str(allow_private).lower()}
    return CliRunner().invoke(main, ["webhooks", "add", "--org", org, "--url", url], env=env)


def test_webhooks_add_refuses_a_broken_url_or_a_private_address_by_default_with_exit_code_1(
    db, database_url, make_org
):
    org = str(make_org())
    refusals = {
        "http://127.0.0.1:99999/x": "Port out of range 0-65535",
        "http://169.254.169.254/latest/meta-data/": "169.254.169.254 is not a public address: link-local; "
        "deliveries to private addresses need RELAY_WEBHOOK_ALLOW_PRIVATE_ADDRESSES=true",
        "http://[::1": "Invalid IPv6 URL",
        "http://hooks.example.com/a\r\nX-Injected: 1": "control or space character '\\r'",
        "http://0x7f000001/": "0x7f000001 (127.0.0.1) is not a public address: loopback",
        "http://10.0.0.5:5432/": "10.0.0.5 is not a public address: private",
        "http://localhost:9/hook": "is not a public address: loopback",
    }
    for url, reason in refusals.items():
        result = _add(database_url, org, url, allow_private=False)
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
        (line,) = result.stderr.strip().splitlines()  # one clear line, no traceback
        assert line.startswith(f"Error: url {url!r}: ") and reason in line, line
    assert db.execute("SELECT count(*) FROM webhook_endpoints").fetchone()[0] == 0

    assert _add(database_url, org, "https://8.8.8.8/hook", allow_private=False).exit_code == 0
    # The opt-in lets private addresses through, never a broken URL.
    assert _add(database_url, org, "http://127.0.0.1:8080/hook", allow_private=True).exit_code == 0
    assert "Port out of range" in _add(database_url, org, "http://127.0.0.1:99999/x", allow_private=True).stderr
    urls = [r[0] for r in db.execute("SELECT url FROM webhook_endpoints ORDER BY id")]
    assert urls == ["https://8.8.8.8/hook", "http://127.0.0.1:8080/hook"]


# --- the dispatcher --------------------------------------------------------------------------


@pytest.fixture
def receivers():
    made: list[Receiver] = []

    def make(**options) -> Receiver:
        made.append(Receiver(**options))
        return made[-1]

    yield make
    for receiver in made:
        receiver.close()


def _endpoint(db, keyring, org: int, url: str) -> tuple[int, str]:
    """An endpoint row written straight into the table (bypassing ``relay webhooks add``'s
    checks), with every event of the organization pending: (id, secret)."""
    secret = new_secret()
    (endpoint_id,) = db.execute(
        "INSERT INTO webhook_endpoints (organization_id, url, secret, cursor_tx, cursor_id) "
        "VALUES (%s, %s, %s, 0, 0) RETURNING id", (org, url, keyring.encrypt(secret)),
    ).fetchone()
    return endpoint_id, secret


def _events(db, org: int, count: int) -> list[str]:
    ids = [db.execute("INSERT INTO events (type, organization_id, payload) VALUES ('earnings.created', %s, %s) "
                      "RETURNING event_id", (org, f'{{"n": {n}}}')).fetchone()[0] for n in range(count)]
    return [f"evt_{i.hex}" for i in ids]


def _log(db, endpoint_id: int) -> list[tuple]:
    return db.execute("SELECT status_code, error, delivered FROM webhook_deliveries WHERE endpoint_id = %s "
                      "ORDER BY id", (endpoint_id,)).fetchall()


def _received(receiver: Receiver, secret: str) -> list[str]:
    return [Webhook(secret).verify(body, headers)["id"] for headers, body in receiver.accepted()]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_poisoned_endpoints_are_logged_retried_and_disabled_while_a_good_one_keeps_receiving(
    db, database_url, settings, make_org, keyring, receivers, caplog
):
    settings = settings.replace(webhook_allow_private_addresses=True, webhook_timeout=5.0)
    org = make_org()
    good, streamed, declared = receivers(), receivers(answer_bytes=BIG, declare_length=False), \
        receivers(answer_bytes=1024 * 1024)
    good_id, good_secret = _endpoint(db, keyring, org, good.url)
    poisoned = {
        "http://[::1": "RefusedURL: 'http://[::1': not a valid URL (Invalid IPv6 URL)",
        "http://127.0.0.1:99999/x": "Port out of range 0-65535",
        "http://127.0.0.1:1/a\r\nX-Injected: 1": "RefusedURL: 'http://127.0.0.1:1/a\\r\\nX-Injected: 1': control",
        f"http://127.0.0.1:{_closed_port()}/hook": "ConnectError: ",
        "http://relay-test.invalid/hook": "DNSError: relay-test.invalid does not resolve",
        f"https://127.0.0.1:{good.port}/hook": "ConnectError: ",  # TLS to a plain HTTP server
        streamed.url: "HTTP 200 with an answer longer than 8192 bytes (RELAY_WEBHOOK_MAX_ANSWER_BYTES)",
        declared.url.replace("/hook", "/declared"): "HTTP 200 with an answer longer than 8192 bytes",
    }
    ids = {url: _endpoint(db, keyring, org, url)[0] for url in poisoned}
    expected = _events(db, org, 3)

    with caplog.at_level(logging.WARNING):
        deliver_until_idle(settings, database_url)
    assert _received(good, good_secret) == expected
    assert "webhook_delivery_crashed" not in caplog.text
    for url, error in poisoned.items():
        ((status, logged, delivered),) = _log(db, ids[url])  # one attempt, then its retry waits
        assert not delivered and error in logged, (url, logged)
        assert status == (200 if "answer longer" in error else None)
    assert streamed.written < BIG / 4  # the answer was not read to its end
    states = db.execute("SELECT id, attempts, failing_since IS NOT NULL, status FROM webhook_endpoints "
                        "WHERE id = ANY(%s)", (list(ids.values()),)).fetchall()
    assert {(attempts, failing, status) for _, attempts, failing, status in states} == {(1, True, "active")}

    # Failing for a day: each poisoned endpoint is disabled with its reason; the good one goes on.
    db.execute("UPDATE webhook_endpoints SET next_attempt_at = now(), failing_since = now() - interval '25 hours' "
               "WHERE id = ANY(%s)", (list(ids.values()),))
    later = _events(db, org, 1)
    deliver_until_idle(settings, database_url)
    assert _received(good, good_secret) == expected + later
    for url, error in poisoned.items():
        status, reason = db.execute("SELECT status, disabled_reason FROM webhook_endpoints WHERE id = %s",
                                    (ids[url],)).fetchone()
        assert status == "disabled" and reason.startswith("failing since ") and error in reason, (url, reason)
    assert db.execute("SELECT status FROM webhook_endpoints WHERE id = %s", (good_id,)).fetchone()[0] == "active"


def test_by_default_no_delivery_reaches_a_loopback_address_however_it_is_spelled(
    db, database_url, settings, make_org, keyring, receivers
):
    assert not settings.webhook_allow_private_addresses  # the default
    org = make_org()
    receiver = receivers()
    port = receiver.port
    urls = [receiver.url, f"http://localhost:{port}/hook", f"http://[::ffff:127.0.0.1]:{port}/hook",
            f"http://0x7f000001:{port}/hook", f"http://2130706433:{port}/hook"]
    ids = [_endpoint(db, keyring, org, url)[0] for url in urls]
    _events(db, org, 1)
    deliver_until_idle(settings, database_url)
    assert receiver.requests == []
    for endpoint_id in ids:
        ((status, error, delivered),) = _log(db, endpoint_id)
        assert status is None and not delivered
        assert error.startswith("RefusedAddress: ") and "is not a public address: loopback" in error, error


def test_a_redirect_is_not_followed_and_fails_the_attempt(db, database_url, settings, make_org, keyring, receivers):
    settings = settings.replace(webhook_allow_private_addresses=True)
    org = make_org()
    target = receivers()
    redirecting = receivers(status=307, headers={"location": target.url})
    endpoint_id, _ = _endpoint(db, keyring, org, redirecting.url)
    _events(db, org, 1)
    deliver_until_idle(settings, database_url)
    assert len(redirecting.requests) == 1 and target.requests == []
    assert _log(db, endpoint_id) == [(307, None, False)]


def test_no_proxy_is_taken_from_the_environment(db, database_url, settings, make_org, keyring, receivers, monkeypatch):
    settings = settings.replace(webhook_allow_private_addresses=True)
    org = make_org()
    receiver, proxy = receivers(), receivers()
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, f"http://127.0.0.1:{proxy.port}")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    _, secret = _endpoint(db, keyring, org, receiver.url)
    expected = _events(db, org, 2)
    deliver_until_idle(settings, database_url)
    assert _received(receiver, secret) == expected and proxy.requests == []


# --- the connection: to the addresses checked ------------------------------------------------


def _answers(*batches: list[str]):
    """A resolver giving each call the next batch of addresses; ``calls`` counts them."""

    async def getaddrinfo(host, port, **_):
        batch = batches[min(getaddrinfo.calls, len(batches) - 1)]
        getaddrinfo.calls += 1
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in batch]

    getaddrinfo.calls = 0
    return getaddrinfo


def _post(backend: PublicAddressBackend, url: str) -> list[int]:
    async def run() -> list[int]:
        async with httpx.AsyncClient(transport=CheckedTransport(backend, 2), trust_env=False, timeout=5) as client:
            return [(await client.post(url, content=b"{}")).status_code]

    return asyncio.run(run())


def test_a_name_with_any_non_public_answer_is_refused_before_connecting(receivers):
    receiver = receivers()
    resolver = _answers(["8.8.8.8", "127.0.0.1"])
    with pytest.raises(RefusedAddress, match=r"hooks\.example\.com \(127\.0\.0\.1\) is not a public address: loopback"):
        _post(PublicAddressBackend(False, resolver), f"http://hooks.example.com:{receiver.port}/hook")
    assert receiver.requests == [] and resolver.calls == 1


def test_the_connection_goes_to_the_address_checked_with_the_urls_host_header(receivers):
    receiver = receivers()
    # One resolution per connection, and the connection goes to its answer: a later, other
    # answer (DNS rebinding) is never asked for, let alone used.
    resolver = _answers(["127.0.0.1"], ["10.9.9.9"])
    assert _post(PublicAddressBackend(True, resolver), f"http://hooks.example.com:{receiver.port}/hook") == [204]
    assert resolver.calls == 1
    assert [h["host"] for h, _, _ in receiver.requests] == [f"hooks.example.com:{receiver.port}"]
