import pytest

pytest_plugins = [
    "tests.fixtures.sandbox",
    "tests.fixtures.database",
    "tests.fixtures.api",
    "tests.fixtures.citus",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``--dist loadgroup``), the tests on the Citus cluster run in one
    process, so the session starts one cluster (three servers), not one per process: those
    that use it directly, the ``citus`` runs of the suites on both databases, and those that
    start a cluster of their own (one at a time on the machine)."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        on_cluster = callspec is not None and callspec.params.get("database_url") == "citus"
        if on_cluster or "citus_ready" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("citus"))


@pytest.fixture(autouse=True)
def _sandbox_clock_and_faults_reset_after_each_test(request):
    """The sandbox serves the whole session: a test that runs its clock, sets a rate limit or
    adds faults must not leave them to whichever test the process runs next (under
    pytest-xdist the order changes from run to run). Account sizes stay: module fixtures set them."""
    yield
    if "sandbox" in request.fixturenames:
        request.getfixturevalue("sandbox").reset(clock=True, faults=True, accounts=False)
