"""Where webhooks may go (docs/events.md, "Where deliveries go").

``checked_url``: the rules of an endpoint's URL, applied by ``relay webhooks add`` and again
before every attempt (a row written some other way cannot crash the dispatcher).
``non_public``: the address rule the dispatcher applies to every address it connects to
(``app.events.webhooks.transport``) and ``relay webhooks add`` to what the host resolves to now.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import unicodedata
from urllib.parse import urlsplit

import httpx

#: Longest URL accepted (characters).
MAX_URL_LENGTH = 2048

ALLOW_PRIVATE = "RELAY_WEBHOOK_ALLOW_PRIVATE_ADDRESSES"

#: A host as httpx sends it: DNS labels (IDNA already applied), an IPv4 or a bracketless IPv6.
_HOST = re.compile(r"[A-Za-z0-9_.-]+|[0-9A-Fa-f:.]+")
#: Control and separator characters (CR, LF, NUL, tabs, spaces, bidi controls, ...).
_FORBIDDEN_CATEGORIES = {"Cc", "Cf", "Zs", "Zl", "Zp"}
#: NAT64's well-known prefix (RFC 6052): the IPv4 address is its last 32 bits.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class RefusedURL(ValueError):
    """An endpoint URL that breaks a rule; the message says which."""


def checked_url(url: str) -> httpx.URL:
    """``url`` parsed, or ``RefusedURL``: at most 2048 characters, none of them a control or
    space character, http or https, a host, a port (when given) from 1 to 65535."""
    if len(url) > MAX_URL_LENGTH:
        raise RefusedURL(f"longer than {MAX_URL_LENGTH} characters")
    for position, char in enumerate(url):
        if unicodedata.category(char) in _FORBIDDEN_CATEGORIES:
            raise RefusedURL(f"control or space character {char!r} at position {position}")
    try:
        port = urlsplit(url).port  # a port out of range or not a number raises here
        parsed = httpx.URL(url)
    except (ValueError, httpx.InvalidURL) as exc:
        raise RefusedURL(f"not a valid URL ({exc})") from None
    if parsed.scheme not in {"http", "https"}:
        raise RefusedURL("must be http:// or https://")
    host = parsed.raw_host.decode("ascii")
    if not host:
        raise RefusedURL("has no host")
    if not _HOST.fullmatch(host):
        raise RefusedURL(f"host {parsed.host!r} is not a DNS name or an IP address")
    if port == 0:
        raise RefusedURL("port must be from 1 to 65535")
    return parsed


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for (IPv4-mapped, 6to4, NAT64), which is where
    a connection to it ends up."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address.sixtofour


def non_public(address: Address) -> str | None:
    """None when ``address`` is public (globally routable unicast); else what it is
    (``loopback``, ``private``, ``link-local`` for 169.254.169.254 and fe80::, ...)."""
    if isinstance(address, ipaddress.IPv6Address) and (inner := _embedded_ipv4(address)) is not None:
        kind = non_public(inner)
        return None if kind is None else f"{kind} ({inner} inside {address})"
    site_local = isinstance(address, ipaddress.IPv6Address) and address.is_site_local
    kinds = (
        ("unspecified", address.is_unspecified),
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("private", address.is_private or site_local),
        ("multicast", address.is_multicast),
        ("reserved", address.is_reserved),
        ("not globally routable", not address.is_global),
    )
    return next((kind for kind, applies in kinds if applies), None)


def refusal(address: Address, host: str) -> str | None:
    """The message refusing a connection to ``address`` (what ``host`` resolved to), or
    None when it is public."""
    kind = non_public(address)
    if kind is None:
        return None
    shown = str(address) if str(address) == host else f"{host} ({address})"
    return (f"{shown} is not a public address: {kind}; deliveries to private addresses "
            f"need {ALLOW_PRIVATE}=true")


def resolve(host: str, port: int) -> list[Address]:
    """The addresses ``host`` resolves to now, in the resolver's order (``socket.gaierror``
    when it does not)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return addresses_of(infos)


def addresses_of(infos) -> list[Address]:
    """The distinct addresses of ``getaddrinfo`` answers, in order (an IPv6 scope dropped:
    scoped addresses are link-local and refused anyway)."""
    found: dict[Address, None] = {}
    for *_, sockaddr in infos:
        found[ipaddress.ip_address(sockaddr[0].split("%", 1)[0])] = None
    return list(found)


def refused_now(url: httpx.URL) -> str | None:
    """Why ``relay webhooks add`` refuses ``url``'s host as it resolves now (an address
    that is not public), or None. A name that does not resolve now is let through: the
    dispatcher checks every connection anyway and logs the failure."""
    host = url.raw_host.decode("ascii")
    try:
        addresses = resolve(host, url.port or (443 if url.scheme == "https" else 80))
    except (OSError, UnicodeError):
        return None
    return next((reason for a in addresses if (reason := refusal(a, host)) is not None), None)
