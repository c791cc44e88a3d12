"""The README stays true: its configuration table is the settings module's, and CI runs its test command."""

from __future__ import annotations

from pathlib import Path

from app.settings_table import settings_table_markdown

ROOT = Path(__file__).resolve().parents[1]


def test_readme_configuration_table_matches_the_settings_module() -> None:
    readme = ROOT.joinpath("README.md").read_text()
    table = readme.split("<!-- settings-table:start -->")[1].split("<!-- settings-table:end -->")[0]
    assert table.strip() == settings_table_markdown().strip(), (
        "README configuration table is stale: regenerate it with `python -m app.settings_table README.md`"
    )


def _readme_test_command() -> str:
    """The command the README's Quickstart gives for running the test suite."""
    block = ROOT.joinpath("README.md").read_text().split("## Quickstart", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]
    (test_command,) = [c for c in commands if c.split()[-1] == "test"]
    return test_command


def _ci_commands() -> list[str]:
    """What .ci/run executes: its lines minus the shebang, comments, shell options and cd."""
    lines = [line.strip() for line in ROOT.joinpath(".ci/run").read_text().splitlines()]
    return [
        line for line in lines
        if line and not line.startswith("#") and not line.startswith("set ") and not line.startswith("cd ")
    ]


def test_ci_runs_exactly_the_readme_test_command_and_it_runs_the_suite() -> None:
    command = _readme_test_command()
    assert command == "make test"
    assert _ci_commands() == [command], "CI must run the README's test command and nothing else"
    # `make test` runs pytest over the whole suite (pyproject's testpaths), not a subset.
    makefile = ROOT.joinpath("Makefile").read_text()
    recipe = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert [line.strip() for line in recipe.splitlines()[1:]] == ["$(BIN)/pytest $(PYTEST_PARALLEL)"]
    assert "-m" not in makefile.split("PYTEST_PARALLEL :=", 1)[1].split("\n", 1)[0]
