"""Security headers of the HTML pages: ``/status`` (and its sign-in page) and ``/docs``.

Every page: no framing (``X-Frame-Options: DENY`` and ``frame-ancestors 'none'``), no MIME
sniffing, no Referer sent onwards, and a Content-Security-Policy. ``/status`` runs no script
and loads nothing: its one inline ``<style>`` is allowed by its hash, its forms post to the
page itself. ``/docs`` is Swagger UI served by the API itself (``app.openapi.docs_page``): scripts, style sheet
and fetches of this origin only, no inline script (``data:`` images: Swagger UI's icons are
inline SVG in its style sheet).
"""

from __future__ import annotations

import base64
import hashlib

_EVERY_PAGE = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}

DOCS_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
)


def style_csp(style: str) -> str:
    """The policy of a page whose only resource is the inline ``<style>`` ``style``, and whose
    forms post to its own origin."""
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    return f"default-src 'none'; style-src 'sha256-{digest}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"


def page_headers(csp: str) -> dict[str, str]:
    return {"Content-Security-Policy": csp, **_EVERY_PAGE}
