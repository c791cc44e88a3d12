"""Every request has an id: kept from a sane X-Request-ID, else generated; answered, logged
and stored on the request's ledger row."""

from __future__ import annotations

import json
import logging

import pytest

from app.logging import configure_logging
from app.request_id import choose_request_id
from tests.fixtures.api import auth, settle_ledger

CHATS = "/v1/{account_id}/chats"


@pytest.mark.parametrize(
    ("incoming", "kept"),
    [
        (b"abc-123", True),
        (b"trace.7:span_9", True),
        (b"x" * 64, True),
        (b"x" * 65, False),
        (b"", False),
        (b"has space", False),
        (b"<script>", False),
        (b"caf\xc3\xa9", False),
        (None, False),
    ],
)
def test_an_incoming_request_id_is_kept_only_when_short_and_made_of_safe_characters(incoming, kept):
    chosen = choose_request_id(incoming)
    if kept:
        assert chosen == incoming.decode()
    else:
        assert len(chosen) == 32 and all(c in "0123456789abcdef" for c in chosen)


def test_the_request_id_is_answered_stored_on_the_ledger_row_and_on_the_log_lines(
    api_client, api_settings, db, make_org, make_key, connect_account, capsys
):
    org = make_org()
    key = make_key(org)  # account 9 is not connected: the gate's 404 verdict, no upstream call
    configure_logging(api_settings.replace(log_level="DEBUG", log_json=True), "api")
    try:
        kept = api_client.get("/v1/9/chats", headers={**auth(key), "X-Request-ID": "given-id-1"})
        made = api_client.get("/v1/9/chats", headers={**auth(key), "X-Request-ID": "bad id!"})
        unauthenticated = api_client.get("/v1/9/chats")
    finally:
        logging.getLogger().setLevel(logging.WARNING)
    assert kept.status_code == 404 and kept.headers["x-request-id"] == "given-id-1"
    generated = made.headers["x-request-id"]
    assert generated != "bad id!" and len(generated) == 32
    assert unauthenticated.status_code == 401 and len(unauthenticated.headers["x-request-id"]) == 32

    settle_ledger(api_client)
    rows = db.execute(
        "SELECT request_id, status, route FROM usage_ledger WHERE organization_id = %s ORDER BY id", (org,)
    ).fetchall()
    assert rows == [("given-id-1", 404, CHATS), (generated, 404, CHATS)]

    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines() if line.startswith("{")]
    finished = {entry["request_id"]: entry for entry in lines if entry["event"] == "request_finished"}
    assert finished["given-id-1"]["status"] == 404
    assert finished["given-id-1"]["route"] == CHATS
    assert finished[unauthenticated.headers["x-request-id"]]["status"] == 401
    assert finished[generated]["process"] == "api"
    assert {"ts", "level", "logger", "pid"} <= set(finished[generated])


@pytest.mark.parametrize("access_log", [True, False])
def test_the_access_log_setting_writes_one_info_line_per_request_with_its_id_route_status_and_time(
    api_settings, db, make_org, make_key, capsys, access_log
):
    from litestar.testing import TestClient

    from app.asgi import create_app

    key = make_key(make_org())
    settings = api_settings.replace(log_level="INFO", log_json=True, access_log=access_log)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        try:
            capsys.readouterr()
            answered = client.get("/v1/9/chats", headers={**auth(key), "X-Request-ID": "access-1"})
            client.get("/health", headers={"X-Request-ID": "access-2"})
        finally:
            logging.getLogger().setLevel(logging.WARNING)
    assert answered.status_code == 404
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines() if line.startswith("{")]
    finished = [e for e in lines if e["event"] == "request_finished"]
    if not access_log:
        assert finished == []  # DEBUG lines, not written at INFO
        return
    assert [(e["request_id"], e["route"], e["status"], e["level"]) for e in finished] == [
        ("access-1", CHATS, 404, "info"), ("access-2", "/health", 200, "info"),
    ]
    assert all(isinstance(e["ms"], float) and e["method"] == "GET" and e["ts"] for e in finished)
