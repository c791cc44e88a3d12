pytest_plugins = [
    "tests.fixtures.database",
]
