"""Exports of the stored rows of one resource, streamed (docs/data.md, "Exports").

GET /v1/{account_id}/exports/{resource}  (api_exports_read)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from litestar import Request
from litestar.openapi.spec import OpenAPIHeader, OpenAPIMediaType, OpenAPIResponse, OpenAPIType, Schema
from litestar.params import FromQuery, Parameter

from app.errors import ApiError
from app.exports.columns import RESOURCES
from app.exports.formats import FORMATS
from app.exports.run import OutsideCoverage, checked_window, encoded
from app.exports.stream import ExportStream
from app.gate import EXPORTS, ConnectedAccount, v1_get
from app.gate.document import GatedOperation, error_spec
from app.params import bad_parameter, parse_timestamp, rule_pattern, timestamp, whole_value

DateParam = Annotated[str | None, timestamp("Default: the stored coverage's bound.")]
Resource = Annotated[
    str,
    Parameter(
        pattern=rule_pattern(whole_value("|".join(RESOURCES)), f"must be one of {', '.join(RESOURCES)}"),
        description="The stored resource.",
    ),
]


@dataclass
class ExportOperation(GatedOperation):
    """The 200 is a file in the asked format, not JSON."""

    def __post_init__(self) -> None:
        super().__post_init__()
        answer = (self.responses or {})["200"]
        assert isinstance(answer, OpenAPIResponse)  # Litestar's, with the headers AnswerOperation added
        answer.description = "The rows as a file: CSV (UTF-8, with a header row) or Parquet."
        answer.content = {
            media: OpenAPIMediaType(schema=Schema(type=OpenAPIType.STRING, content_media_type=media))
            for media in FORMATS.values()
        }
        answer.headers = {**(answer.headers or {}), "Content-Disposition": OpenAPIHeader(
            schema=Schema(type=OpenAPIType.STRING),
            description='attachment; filename="<resource>-<account_id>.<format>"',
            required=True,
        )}


OUTSIDE_COVERAGE = error_spec(
    409,
    "The window is not inside the stored coverage of the resource (the message names it). 1 credit.",
    {"error": "window 2024-01-01T00:00:00+00:00..2024-12-31T23:59:59+00:00 is not inside the stored coverage "
     "of earnings: 2025-01-01T00:00:00+00:00..2026-01-01T00:00:00+00:00", "code": "outside_coverage"},
)


@v1_get(
    "/v1/{account_id:int}/exports/{resource:str}",
    permission="api_exports_read",
    responses={409: OUTSIDE_COVERAGE},
    operation_class=ExportOperation,
    share=EXPORTS,
    tags=["exports"],
    summary="Export stored rows (CSV or Parquet)",
)
async def export_rows(
    request: Request,
    account: ConnectedAccount,
    resource: Resource,
    format: FromQuery[Literal["csv", "parquet"]] = "csv",  # noqa: A002 - the parameter's name in the URL
    start_date: DateParam = None,
    end_date: DateParam = None,
) -> ExportStream:
    """Every stored row of the window, oldest first; the window must lie inside the stored
    coverage (409 names it). Columns and types: docs/data.md."""
    if resource not in RESOURCES:
        raise bad_parameter("resource", f"must be one of {', '.join(RESOURCES)}", source="path")
    start = parse_timestamp("start_date", start_date) if start_date else None
    end = parse_timestamp("end_date", end_date, end=True) if end_date else None
    if start is not None and end is not None and end < start:
        raise bad_parameter("end_date", "must not be before start_date")
    pool = request.app.state.pool
    async with pool.connection() as conn:
        try:
            lower, upper = await checked_window(conn, account.account_id, resource, start, end)
        except OutsideCoverage as exc:
            raise ApiError(409, str(exc), "outside_coverage") from None
    settings = request.app.state.settings
    # Each batch checks a pooled connection out for its one statement: an export whose
    # client reads slowly holds none between batches (app/exports/rows.py).
    chunks = encoded(pool.connection, account.account_id, resource, format, lower, upper, batch=settings.export_batch_rows)
    name = f"{resource}-{account.account_id}.{format}"
    return ExportStream(
        chunks,
        send_timeout=settings.export_send_timeout,
        media_type=FORMATS[format],
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


ROUTES = [export_rows]
