"""compose.yaml wires the services with the settings module's variables (Docker does not run here)."""

from __future__ import annotations

from pathlib import Path

import yaml

from app.settings import Settings, documented_settings

COMPOSE = Path(__file__).resolve().parents[1] / "compose.yaml"


def _services() -> dict:
    return yaml.safe_load(COMPOSE.read_text())["services"]


def test_compose_defines_the_whole_stack() -> None:
    services = _services()
    assert {"postgres", "migrate", "api", "worker", "sandbox"} <= set(services)
    assert "healthcheck" in services["postgres"]
    assert services["migrate"]["command"] == ["relay", "migrate"]
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name in ("api", "worker"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"


def test_every_relay_variable_in_compose_is_a_setting_and_parses() -> None:
    known = {name for name, _, _ in documented_settings()}
    for name, service in _services().items():
        env = service.get("environment") or {}
        relay_vars = {k: str(v) for k, v in env.items() if k.startswith("RELAY_")}
        assert set(relay_vars) <= known, f"{name}: unknown variables {set(relay_vars) - known}"
        if relay_vars:
            Settings.from_env(relay_vars)  # raises on a value the settings module rejects


def test_services_reach_the_database_and_upstream_by_compose_names() -> None:
    for name in ("migrate", "api", "worker"):
        env = _services()[name]["environment"]
        assert Settings.from_env(env).database_url.startswith("postgresql://relay:relay@postgres:")
    assert Settings.from_env(_services()["api"]["environment"]).upstream_url == "http://sandbox:8700"
