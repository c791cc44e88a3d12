"""The house's shape, drawn from the code itself (docs/architecture.md): no import cycle among
the modules of app/ and sync/, the store apart from the gate and the live relay, only
Litestar's public API, and no module over 400 lines."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("app", "sync")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


def _imports_at_load(path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules ``path`` imports when it is loaded: module-level statements only
    (an import inside a function runs later, on purpose) and not those under TYPE_CHECKING."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    # A submodule's import loads its packages too, but those edges are the package's own.
    return {m for m in found if m in modules and m != name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports_at_load(path, modules) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_among_modules():
    graph = _graph()
    assert sum(map(len, graph.values())) > 300  # the graph was drawn
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_store_depends_on_neither_the_gate_nor_the_live_relay():
    graph = _graph()
    for module, targets in graph.items():
        if module.startswith("app.store"):
            assert not {t for t in targets if t.startswith(("app.gate", "app.upstream.relay"))}, module


def test_no_litestar_internals():
    """Only Litestar's public API: its private modules change without notice."""
    private = set()
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            modules = ([a.name for a in node.names] if isinstance(node, ast.Import)
                       else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            private |= {(name, m) for m in modules
                        if m.startswith("litestar") and any(part.startswith("_") for part in m.split("."))}
    assert private == set()


def test_no_module_is_over_400_lines():
    long = {name: n for name, path in _modules().items() if (n := len(path.read_text().splitlines())) > 400}
    assert long == {}
