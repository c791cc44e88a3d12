pytest_plugins = [
    "tests.fixtures.sandbox",
    "tests.fixtures.database",
    "tests.fixtures.api",
    "tests.fixtures.citus",
]
