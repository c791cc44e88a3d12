"""The OpenAPI document the API serves at ``/docs/openapi.json``, written without a server.

``relay openapi`` prints it; ``make client`` generates ``clients/python/`` from it. It is
built from the app itself (``create_app``), so it is the served document, with the default
settings: what the environment says does not change the client. The app is only built, never
started (no database is reached); the key it needs to build is a throwaway one.
"""

from __future__ import annotations

import json
from typing import Any

from app.crypto.keys import generate_key
from app.settings import Settings


def openapi_document() -> dict[str, Any]:
    from app.asgi import create_app

    app = create_app(Settings(secret_keys=generate_key(), database_url="postgresql://unused/relay"))
    return app.openapi_schema.to_schema()


def render(document: dict[str, Any]) -> str:
    """The document as the served bytes' JSON, indented so a change reads as a small diff."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
