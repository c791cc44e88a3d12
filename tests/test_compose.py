"""compose.yaml wires the services with the settings module's variables (Docker does not run here)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from app.crypto.keys import generate_key
from app.settings import Settings
from app.settings_table import documented_settings

COMPOSE = Path(__file__).resolve().parents[1] / "compose.yaml"


#: Values compose takes from the shell that runs it (``${NAME:?message}``): a sample each.
FROM_THE_SHELL = {"RELAY_SECRET_KEYS": generate_key()}
_INTERPOLATION = re.compile(r"^\$\{(\w+):\?[^}]+\}$")


def _services() -> dict:
    """The services, each ``${NAME:?...}`` (required from the shell) replaced by its sample."""
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    for service in services.values():
        env = service.get("environment") or {}
        for name, value in env.items():
            if (match := _INTERPOLATION.match(str(value))) is not None:
                assert match.group(1) == name and name in FROM_THE_SHELL, f"{name}: {value}"
                env[name] = FROM_THE_SHELL[name]
    return services


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


# --- the Dockerfile every relay service builds from -------------------------------------------

DOCKERFILE = COMPOSE.parent / "Dockerfile"


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined, comments dropped."""
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines]


def test_every_relay_service_builds_from_the_dockerfile_and_runs_a_relay_command() -> None:
    from click import Context

    from app.cli import main

    ctx = Context(main)
    relay_services = {n: s for n, s in _services().items() if s.get("image", "").startswith("creator-relay")}
    assert set(relay_services) == {"migrate", "sandbox", "api", "worker"}
    for name, service in relay_services.items():
        assert service["build"] == {"context": ".", "dockerfile": "Dockerfile"}, name
        program, subcommand, *args = service["command"]
        assert program == "relay", name
        command = main.get_command(ctx, subcommand)
        assert command is not None, f"{name}: relay has no command {subcommand!r}"
        command.make_context(subcommand, list(args))  # its arguments parse


def test_the_dockerfile_is_multi_stage_slim_and_runs_as_a_non_root_user() -> None:
    instructions = _instructions()
    stages = [args for op, args in instructions if op == "FROM"]
    assert len(stages) >= 2, "multi-stage: a build stage and a runtime stage"
    runtime_at = max(i for i, (op, _) in enumerate(instructions) if op == "FROM")
    runtime = instructions[runtime_at:]
    assert stages[-1].split()[0].endswith("-slim")
    users = [args for op, args in runtime if op == "USER"]
    assert users and users[-1].split(":")[0] not in {"root", "0"}
    assert any(op == "COPY" and args.startswith("--from=build") for op, args in runtime)
    cmd = next(args for op, args in reversed(runtime) if op == "CMD")
    assert cmd.startswith('["relay"')


def test_every_relay_variable_the_dockerfile_sets_is_a_setting_and_parses() -> None:
    known = {name for name, _, _ in documented_settings()}
    env: dict[str, str] = {}
    for op, args in _instructions():
        if op == "ENV":
            for pair in args.split():
                name, _, value = pair.partition("=")
                if name.startswith("RELAY_"):
                    env[name] = value
    assert env and set(env) <= known, set(env) - known
    Settings.from_env(env)


def test_the_dockerfile_copies_what_the_migrations_need() -> None:
    copied = " ".join(args for op, args in _instructions() if op == "COPY")
    for needed in ("alembic.ini", "migrations", "app", "sync", "sandbox", "pyproject.toml"):
        assert needed in copied
