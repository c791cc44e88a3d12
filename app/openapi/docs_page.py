"""/docs: Swagger UI served by the API itself, for readers without internet (and without a CDN
on the page where users paste their keys).

Its script and style sheet come from the ``swagger-ui-bundle-v2`` package (pinned with its
hash in the lock files), its start-up script from ``app/openapi/docs_assets``; all are served at
``/docs/assets/<name>`` from memory, and the page names each with its Subresource Integrity
hash. The page's policy (``app.html_headers.DOCS_CSP``) allows this origin's scripts, styles
and fetches only; the page has no inline script.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from litestar import Request, Response, Router, get
from litestar.exceptions import NotFoundException
from litestar.openapi.plugins import OpenAPIRenderPlugin
from litestar.params import FromPath
from swagger_ui_bundle import swagger_ui_path


@dataclass(frozen=True)
class Asset:
    body: bytes
    media_type: str

    @property
    def integrity(self) -> str:
        """The SRI value of the body (``sha384-<base64>``)."""
        return "sha384-" + base64.b64encode(hashlib.sha384(self.body).digest()).decode()


def _asset(path: Path, media_type: str) -> Asset:
    return Asset(path.read_bytes(), media_type)


_BUNDLE = Path(swagger_ui_path)
ASSETS: dict[str, Asset] = {
    "swagger-ui.css": _asset(_BUNDLE / "swagger-ui.css", "text/css"),
    "swagger-ui-bundle.js": _asset(_BUNDLE / "swagger-ui-bundle.js", "text/javascript"),
    "start.js": _asset(Path(__file__).parent / "docs_assets" / "start.js", "text/javascript"),
}


@get("/assets/{name:str}", include_in_schema=False, sync_to_thread=False)
def docs_asset(name: FromPath[str]) -> Response[bytes]:
    asset = ASSETS.get(name)
    if asset is None:
        raise NotFoundException()
    # The files change only with the package (a new process): a day in the browser's cache.
    return Response(asset.body, media_type=asset.media_type, headers={"Cache-Control": "public, max-age=86400"})


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="{assets}/swagger-ui.css" integrity="{css}">
</head>
<body>
<div id="swagger-ui" data-spec="{spec}"></div>
<script src="{assets}/swagger-ui-bundle.js" integrity="{bundle}"></script>
<script src="{assets}/start.js" integrity="{start}"></script>
</body>
</html>
"""


class OfflineSwaggerPlugin(OpenAPIRenderPlugin):
    """Swagger UI at ``/docs``, every file from this process."""

    def render(self, request: Request, openapi_schema: dict[str, Any]) -> bytes:
        spec = self.get_openapi_json_route(request)
        return _PAGE.format(
            title=escape(openapi_schema["info"]["title"]),
            assets=escape(spec.rsplit("/", 1)[0] + "/assets"),
            spec=escape(spec),
            css=ASSETS["swagger-ui.css"].integrity,
            bundle=ASSETS["swagger-ui-bundle.js"].integrity,
            start=ASSETS["start.js"].integrity,
        ).encode()

    def receive_router(self, router: Router) -> None:
        router.register(docs_asset)
