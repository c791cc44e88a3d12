"""compose.yaml wires the services with the settings module's variables (Docker does not run here)."""

from __future__ import annotations

import re
from pathlib import Path

import psycopg
import pytest
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


LONG_RUNNING = ("postgres", "sandbox", "api", "worker")


def test_every_long_running_service_has_a_health_check_and_restarts_and_migrate_runs_once() -> None:
    services = _services()
    for name in LONG_RUNNING:
        assert services[name].get("healthcheck", {}).get("test"), f"{name}: no health check"
        assert services[name].get("restart") == "unless-stopped", name
    assert services["migrate"]["restart"] == "no"
    # The API starts once the sandbox answers, not merely once its container started.
    assert services["api"]["depends_on"]["sandbox"]["condition"] == "service_healthy"


def _probe_url(service: dict) -> str:
    """The URL a relay service's health check opens (python's urllib, in the image)."""
    (url,) = re.findall(r"urlopen\('([^']+)'", " ".join(service["healthcheck"]["test"]))
    return url


def test_each_health_check_probes_the_port_its_service_listens_on() -> None:
    services = _services()
    api, sandbox = Settings.from_env(services["api"]["environment"]), Settings.from_env(services["sandbox"]["environment"])
    worker = Settings.from_env(services["worker"]["environment"])
    assert _probe_url(services["api"]) == f"http://127.0.0.1:{api.api_port}/health"
    assert _probe_url(services["sandbox"]) == f"http://127.0.0.1:{sandbox.sandbox_port}/_sandbox/health"
    assert _probe_url(services["worker"]) == f"http://127.0.0.1:{worker.worker_metrics_port}/metrics"


def test_a_health_check_command_passes_on_a_live_service_and_fails_on_a_dead_one(sandbox) -> None:
    import subprocess
    import sys

    from tests.fixtures.net import free_port

    command = _services()["sandbox"]["healthcheck"]["test"]
    assert command[:2] == ["CMD", "python"]
    alive = [sys.executable, *command[2:]]
    alive[-1] = alive[-1].replace("http://127.0.0.1:8700", sandbox.url)
    assert subprocess.run(alive, capture_output=True, timeout=30).returncode == 0
    dead = [*alive[:-1], alive[-1].replace(sandbox.url, f"http://127.0.0.1:{free_port()}")]
    assert subprocess.run(dead, capture_output=True, timeout=30).returncode != 0


def test_only_the_api_is_published_on_the_host() -> None:
    services = _services()
    published = {name: s["ports"] for name, s in services.items() if s.get("ports")}
    api_port = Settings.from_env(services["api"]["environment"]).api_port
    assert published == {"api": [f"{api_port}:{api_port}"]}
    # The metrics and the sandbox's control API stay on the compose network...
    assert "9100" in services["api"]["expose"] and "8700" in services["sandbox"]["expose"]
    # ... unless asked for with the override, which publishes them on the loopback only.
    override = yaml.safe_load(COMPOSE.with_name("compose.ports.yaml").read_text())["services"]
    for name, service in override.items():
        assert name in services
        assert all(port.startswith("127.0.0.1:") for port in service["ports"]), name


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


# --- the lock files the Makefile, CI and the Dockerfile install from ---------------------------

LOCKS = COMPOSE.parent / "requirements"
#: Packages the image must not carry: the embedded database, what only the tests use, and
#: litestar's example generator (off in our OpenAPI config).
NOT_IN_THE_IMAGE = {"pgserver", "faker", "polyfactory", "pytest", "pytest-asyncio", "hypothesis",
                    "schemathesis", "playwright", "standardwebhooks"}


def _pins(lock: str) -> dict[str, str]:
    pins = {}
    for line in (LOCKS / lock).read_text().splitlines():
        if (match := re.match(r"^([A-Za-z0-9_.\-]+)==([^ ;\\]+)", line)) is not None:
            pins[match.group(1).lower().replace("_", "-")] = match.group(2)
    return pins


def _declared(*extras: str) -> list:
    import tomllib

    from packaging.requirements import Requirement

    project = tomllib.loads(COMPOSE.with_name("pyproject.toml").read_text())["project"]
    names = list(project["dependencies"])
    for extra in extras:
        names += project["optional-dependencies"][extra]
    return [Requirement(r) for r in names]


@pytest.mark.parametrize(("lock", "extras"), [("dev.lock", ("embedded", "test")), ("image.lock", ())])
def test_each_lock_pins_every_declared_dependency_within_its_range(lock: str, extras: tuple) -> None:
    """A dependency added to pyproject.toml without `make lock` fails here, naming it."""
    pins = _pins(lock)
    for requirement in _declared(*extras):
        name = requirement.name.lower().replace("_", "-")
        assert name in pins, f"{name} is not in requirements/{lock}: run make lock"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"requirements/{lock} pins {name}=={pins[name]}, outside {requirement.specifier}: run make lock")


def test_the_locks_hash_every_package_come_from_pypi_and_the_image_lock_leaves_out_what_it_does_not_need() -> None:
    for lock in ("dev.lock", "image.lock"):
        text = (LOCKS / lock).read_text()
        assert "make lock" in text.splitlines()[1]
        assert not re.search(r"^\s*--(index-url|extra-index-url|find-links)", text, re.MULTILINE)
        assert "://" not in text.replace("# ", "")  # pinned names only: no URL or path requirement
        blocks = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])
        assert all("--hash=sha256:" in block for block in blocks if "==" in block), lock
    assert NOT_IN_THE_IMAGE <= set(_pins("dev.lock"))
    assert not NOT_IN_THE_IMAGE & set(_pins("image.lock"))


def test_the_makefile_ci_and_the_dockerfile_install_from_the_locks() -> None:
    makefile = COMPOSE.with_name("Makefile").read_text()
    recipe = makefile.split("$(STAMP): pyproject.toml $(DEV_LOCK)", 1)[1].split("\n\n", 1)[0]
    assert "pip install --quiet --no-deps --require-hashes -r $(DEV_LOCK)" in recipe
    assert "DEV_LOCK   := requirements/dev.lock" in makefile and "\nlock:" in makefile
    runs = " ".join(args for op, args in _instructions() if op == "RUN")
    assert "pip install --no-deps --require-hashes -r requirements/image.lock" in runs
    assert any(op == "COPY" and "requirements/image.lock" in args for op, args in _instructions())


def test_the_code_runs_without_the_packages_the_image_leaves_out(database_url: str) -> None:
    """The API (its OpenAPI schema included), the workers' and the sandbox's commands load
    with those packages unimportable, as in the image; without RELAY_DATABASE_URL and without
    the embedded PostgreSQL a command says what to do in one line."""
    import subprocess
    import sys

    from tests.fixtures.database import TEST_SECRET_KEYS

    script = f"""
import sys
BLOCKED = {sorted(name.replace("-", "_") for name in NOT_IN_THE_IMAGE)!r}
class NotInTheImage:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(name + " is not in the image")
sys.meta_path.insert(0, NotInTheImage())
from litestar.testing import TestClient
from app.asgi import create_app
from app.settings import Settings
from app.cli import main
app = create_app(Settings(database_url={database_url!r}, secret_keys={TEST_SECRET_KEYS!r}))
with TestClient(app) as client:
    assert client.get("/health").status_code == 200
    schema = client.get("/docs/openapi.json")
    assert schema.status_code == 200 and "/v1/{{account_id}}/earnings" in schema.json()["paths"]
for command in ("worker", "sync", "sandbox", "webhooks", "export", "migrate"):
    main([command, "--help"], standalone_mode=False)
try:
    main(["orgs", "list"], standalone_mode=False)
except Exception as exc:
    print("REFUSED:", exc)
"""
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("RELAY_")}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "REFUSED: RELAY_DATABASE_URL is not set and the embedded PostgreSQL is not installed" in result.stdout
    assert "pip install 'creator-relay[embedded]'" in result.stdout


# --- the optional Citus profile (docs/scaling.md) ---------------------------------------------

CITUS_IMAGE = "citusdata/citus:"
_CALL = re.compile(r"SELECT (citus_set_coordinator_host|citus_add_node)\('([\w-]+)', (\d+)\)")


def _citus_nodes() -> dict:
    return {n: s for n, s in _services().items() if s.get("image", "").startswith(CITUS_IMAGE)
            and "entrypoint" not in s}


def _registrations() -> list[tuple[str, str, int]]:
    """(function, host, port) of each registration the one-shot service runs, in order."""
    command = " ".join(_services()["citus-register"]["command"])
    return [(f, host, int(port)) for f, host, port in _CALL.findall(command)]


def test_a_plain_up_starts_no_citus_service() -> None:
    services = _services()
    profiled = {n for n, s in services.items() if "citus" in s.get("profiles", [])}
    assert profiled == {n for n in services if n.startswith("citus-")}
    for name, service in services.items():
        if name not in profiled:
            assert not set(service.get("depends_on") or {}) & profiled, name


def test_the_citus_profile_is_a_coordinator_and_two_workers_of_the_official_image_with_relays_credentials() -> None:
    nodes = _citus_nodes()
    assert "citus-coordinator" in nodes and len(nodes) >= 3
    url = Settings.from_env(_services()["migrate"]["environment"]).database_url
    user, password, database = re.match(r"postgresql://(\w+):(\w+)@[\w-]+:\d+/(\w+)$", url).groups()
    volumes = set()
    for name, node in nodes.items():
        assert node["image"].removeprefix(CITUS_IMAGE).startswith("13."), name  # the tested major version
        env = node["environment"]
        assert (env["POSTGRES_USER"], env["POSTGRES_PASSWORD"], env["POSTGRES_DB"]) == (user, password, database)
        # How the nodes authenticate to each other.
        assert (env["PGUSER"], env["PGPASSWORD"]) == (user, password), name
        assert "pg_isready" in " ".join(node["healthcheck"]["test"]), name
        # relay db distribute (online) and rebalancing replicate logically (docs/scaling.md).
        assert node["command"] == ["postgres", "-c", "wal_level=logical"], name
        volumes |= {v.split(":")[0] for v in node["volumes"]}
    assert len(volumes) == len(nodes)  # a data volume of its own each
    assert volumes <= set(yaml.safe_load(COMPOSE.read_text())["volumes"])


def test_the_register_service_adds_every_worker_once_all_nodes_are_healthy() -> None:
    register = _services()["citus-register"]
    nodes = _citus_nodes()
    assert register["restart"] == "no"
    assert {n: d["condition"] for n, d in register["depends_on"].items()} == dict.fromkeys(nodes, "service_healthy")
    assert register["entrypoint"][:3] == ["psql", "-v", "ON_ERROR_STOP=1"]
    assert register["entrypoint"][register["entrypoint"].index("-h") + 1] == "citus-coordinator"
    assert _registrations()[0] == ("citus_set_coordinator_host", "citus-coordinator", 5432)
    workers = {host for f, host, port in _registrations() if f == "citus_add_node" and port == 5432}
    assert workers == set(nodes) - {"citus-coordinator"}


@pytest.mark.slow
def test_the_register_statements_run_on_citus_and_may_run_again(citus_cluster, citus_empty_database) -> None:
    """The service's statements, with the compose names mapped to the test cluster's nodes,
    on a database that lacks a worker: it joins, and a second run (a restarted stack)
    changes nothing."""
    ports = {"citus-coordinator": citus_cluster.coordinator.port}
    ports |= {f"citus-worker-{n}": worker.port for n, worker in enumerate(citus_cluster.workers, 1)}
    with citus_empty_database() as url, psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT citus_remove_node('127.0.0.1', %s)", (citus_cluster.workers[0].port,))
        for _ in range(2):
            for function, host, _port in _registrations():
                conn.execute(f"SELECT {function}('127.0.0.1', %s)", (ports[host],))
            nodes = conn.execute("SELECT nodeport FROM pg_dist_node ORDER BY nodeport").fetchall()
            assert [port for (port,) in nodes] == sorted(ports.values())
