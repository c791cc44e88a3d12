from __future__ import annotations

from pathlib import Path

import pytest

from app.settings import Settings, SettingsError
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
