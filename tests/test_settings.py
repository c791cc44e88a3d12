from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from app.setting_values import SettingsError
from app.settings import Settings
from app.settings_table import documented_settings


def test_settings_read_relay_prefixed_variables() -> None:
    settings = Settings.from_env(
        {"RELAY_DATABASE_URL": "postgresql://u@h/db", "RELAY_API_PORT": "9001", "RELAY_LOG_JSON": "no"}
    )
    assert settings.database_url == "postgresql://u@h/db"
    assert settings.api_port == 9001
    assert settings.log_json is False


def test_unset_database_url_selects_the_embedded_database() -> None:
    settings = Settings.from_env({"RELAY_DATABASE_URL": ""})
    assert settings.database_url is None
    assert settings.data_dir == Path(".relay")


def test_every_invalid_value_is_reported_by_name_at_once() -> None:
    with pytest.raises(SettingsError) as info:
        Settings.from_env({"RELAY_API_PORT": "http", "RELAY_LOG_JSON": "maybe"})
    assert "RELAY_API_PORT" in str(info.value) and "RELAY_LOG_JSON" in str(info.value)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("RELAY_DATABASE_URL", "mysql://x"),
        ("RELAY_API_PORT", "70000"),
        ("RELAY_UPSTREAM_URL", "ftp://x"),
        ("RELAY_DB_POOL_MAX", "0"),
        ("RELAY_LOG_LEVEL", "LOUD"),
    ],
)
def test_out_of_range_values_are_rejected(variable: str, value: str) -> None:
    with pytest.raises(SettingsError, match=variable):
        Settings.from_env({variable: value})


def test_every_setting_is_documented() -> None:
    for name, _, doc in documented_settings():
        assert name.startswith("RELAY_") and doc


def test_values_that_do_not_parse_and_values_that_break_a_rule_are_all_listed_in_plain_words() -> None:
    with pytest.raises(SettingsError) as info:
        Settings.from_env({"RELAY_DB_POOL_MAX": "ten", "RELAY_API_PORT": "70000",
                           "RELAY_UPSTREAM_READ_TIMEOUT": "soon", "RELAY_LOG_LEVEL": "LOUD"})
    lines = str(info.value).splitlines()
    assert lines[0] == "4 problems with the settings (RELAY_* variables):"
    assert lines[1:] == [
        "  RELAY_DB_POOL_MAX='ten': must be a whole number",
        "  RELAY_UPSTREAM_READ_TIMEOUT='soon': must be a number (e.g. 2 or 0.5)",
        "  RELAY_API_PORT must be between 1 and 65535",
        "  RELAY_LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL",
    ]
    assert "invalid literal" not in str(info.value) and "could not convert" not in str(info.value)


def test_log_json_unset_or_auto_follows_the_terminal_and_true_or_false_is_kept(monkeypatch) -> None:
    import sys

    from app.logging import json_lines

    class Terminal:
        def isatty(self) -> bool:
            return True

    assert Settings.from_env({}).log_json is None
    assert Settings.from_env({"RELAY_LOG_JSON": "auto"}).log_json is None
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert json_lines(Settings()) is False  # a person at a terminal: readable lines
    assert json_lines(Settings(log_json=True)) is True
    monkeypatch.undo()
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert json_lines(Settings()) is True  # a pipe, a file, a container: JSON
    assert json_lines(Settings(log_json=False)) is False


def test_a_new_organization_gets_the_default_credits_and_a_negative_default_is_refused() -> None:
    assert Settings().default_credits == 1000
    assert Settings.from_env({"RELAY_DEFAULT_CREDITS": "0"}).default_credits == 0
    with pytest.raises(SettingsError, match="RELAY_DEFAULT_CREDITS must not be negative"):
        Settings.from_env({"RELAY_DEFAULT_CREDITS": "-5"})


#: Numbers any value of which is meaningful (a seed, an epoch that may be unset).
UNBOUNDED_NUMBERS = {"sandbox_seed", "sandbox_epoch"}


def test_every_number_setting_declares_the_rule_its_value_keeps() -> None:
    """A count, a size, a rate or a time without a rule would let 0 or a negative value
    through to whatever it bounds."""
    unruled = [
        f.name for f in dataclasses.fields(Settings)
        if f.type in {"int", "float", "int | None", "float | None"}
        and f.metadata["check"] is None and f.name not in UNBOUNDED_NUMBERS
    ]
    assert unruled == []


@pytest.mark.parametrize("name", ["sync_page_size", "webhook_max_answer_bytes", "api_max_connections"])
def test_a_rule_declared_on_a_setting_refuses_a_value_it_breaks(name: str) -> None:
    with pytest.raises(SettingsError, match=f"RELAY_{name.upper()} must be greater than 0"):
        Settings.from_env({f"RELAY_{name.upper()}": "0"})
