"""Security headers of the HTML pages: ``/status`` (and its sign-in page) and ``/docs``.

Every page: no framing (``X-Frame-Options: DENY`` and ``frame-ancestors 'none'``), no MIME
sniffing, no Referer sent onwards, and a Content-Security-Policy. ``/status`` runs no script
and loads nothing: its one inline ``<style>`` is allowed by its hash, its forms post to the
page itself. ``/docs`` is Litestar's Swagger UI, which today loads its script, style and icon
from the jsDelivr CDN and starts with an inline script: its policy allows exactly that (to be
narrowed to 'self' once the UI is served by the API itself).
"""

from __future__ import annotations

import base64
import hashlib

_EVERY_PAGE = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}

SWAGGER_CDN = "https://cdn.jsdelivr.net"

DOCS_CSP = (
    f"default-src 'none'; script-src {SWAGGER_CDN} 'unsafe-inline'; style-src {SWAGGER_CDN} 'unsafe-inline'; "
    f"img-src {SWAGGER_CDN} data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)


def style_csp(style: str) -> str:
    """The policy of a page whose only resource is the inline ``<style>`` ``style``, and whose
    forms post to its own origin."""
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    return f"default-src 'none'; style-src 'sha256-{digest}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"


def page_headers(csp: str) -> dict[str, str]:
    return {"Content-Security-Policy": csp, **_EVERY_PAGE}
