import pytest

pytest_plugins = [
    "tests.fixtures.sandbox",
    "tests.fixtures.database",
    "tests.fixtures.api",
    "tests.fixtures.citus",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``--dist loadgroup``), the tests on the Citus cluster run in one
    process, so the session starts one cluster (three servers), not one per process."""
    for item in items:
        if "citus_cluster" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("citus"))
