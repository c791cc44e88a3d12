"""The README stays true: its configuration table is the settings module's, and CI runs its test command."""

from __future__ import annotations

from pathlib import Path

from app.settings import settings_table_markdown

ROOT = Path(__file__).resolve().parents[1]


def test_readme_configuration_table_matches_the_settings_module() -> None:
    readme = ROOT.joinpath("README.md").read_text()
    table = readme.split("<!-- settings-table:start -->")[1].split("<!-- settings-table:end -->")[0]
    assert table.strip() == settings_table_markdown().strip(), (
        "README configuration table is stale: regenerate it with `python -m app.settings README.md`"
    )


def test_ci_runs_the_readme_test_command() -> None:
    readme = ROOT.joinpath("README.md").read_text()
    assert "make test" in readme
    assert "make test" in ROOT.joinpath(".ci/run").read_text()
