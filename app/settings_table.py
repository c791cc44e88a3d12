"""The README's configuration table, derived from the fields of ``app.settings.Settings``.

``python -m app.settings_table README.md`` refreshes the README; without an argument it prints
the table.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from app.settings import Settings, env_name


def documented_settings() -> list[tuple[str, str, str]]:
    """(variable, default, description) for every setting: the README's configuration table."""
    rows = []
    for f in dataclasses.fields(Settings):
        default = "" if f.default is None else str(f.default)
        rows.append((env_name(f.name), default, f.metadata["doc"]))
    return rows


def settings_table_markdown() -> str:
    """The README's configuration table (``python -m app.settings_table`` prints it)."""
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    for name, default, doc in documented_settings():
        lines.append(f"| `{name}` | {f'`{default}`' if default else '(unset)'} | {doc} |")
    return "\n".join(lines)


def rewrite_readme_table(readme: Path) -> None:
    """Replace the table between the README's settings-table markers with the current one."""
    start, end = "<!-- settings-table:start -->", "<!-- settings-table:end -->"
    text = readme.read_text()
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    readme.write_text(f"{head}{start}\n{settings_table_markdown()}\n{end}{tail}")


if __name__ == "__main__":
    # `python -m app.settings README.md` refreshes the README; without an argument, prints the table.
    import sys

    if len(sys.argv) > 1:
        rewrite_readme_table(Path(sys.argv[1]))
    else:
        print(settings_table_markdown())
