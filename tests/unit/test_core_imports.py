"""No import circle in ``desktop_agent.core`` (issue 21): its modules import one another in one direction.

The graph is built from the source with :mod:`ast`, not by importing, so a circle that happens to work at
run time (because one side imports late, or only names a module) is still found. What counts as an edge:

- every ``import`` / ``from … import`` of a core module, at module level **and inside functions and
  classes**: a late import that closes a circle still is one (it only hides it from the interpreter);
- except imports under ``if TYPE_CHECKING:`` (never executed: annotations only);
- ``from package import name`` is an edge to ``package.name`` when that is a module, else to ``package``;
- importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` too: an edge to each of those packages as
  well — except to the importer's own packages, which are always loaded before the importer (a package
  re-exporting its submodules is no circle with them).
"""

from __future__ import annotations

import ast
import pkgutil
from pathlib import Path

import desktop_agent.core

CORE = "desktop_agent.core"


def core_modules() -> dict[str, Path]:
    """Every module of the core package and its source file."""
    root = Path(desktop_agent.core.__file__).parent
    found = {CORE: root / "__init__.py"}
    for info in pkgutil.walk_packages([str(root)], prefix=CORE + "."):
        path = root.joinpath(*info.name.split(".")[2:])
        found[info.name] = path / "__init__.py" if info.ispkg else path.with_suffix(".py")
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement of ``tree`` except those under ``if TYPE_CHECKING:``."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute name ``from … import`` reads from (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph() -> dict[str, set[str]]:
    """Module → the core modules it imports (see the module docstring for what counts)."""
    modules = core_modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                source = _resolve(name, is_package, node)
                targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source for a in node.names]
            for target in targets:
                graph[name].update(_with_packages(name, target) & modules.keys())
    return graph


def _with_packages(importer: str, target: str) -> set[str]:
    """``target`` and the packages importing it loads that are not already loaded with ``importer``."""
    parts = target.split(".")
    found = {".".join(parts[:n]) for n in range(1, len(parts) + 1)}
    return {t for t in found if t != importer and not importer.startswith(t + ".")}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle per strongly connected component of more than one module (Tarjan), shortest path shown."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(component)

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return [_a_circle(graph, component) for component in components]


def _a_circle(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """The shortest way from the component's first module back to itself (breadth first)."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph[v] & component):
            if w == start:
                return [*paths[v], start]
            if w not in paths:
                paths[w] = [*paths[v], w]
                queue.append(w)
    return sorted(component)


def test_the_core_has_no_import_circle():
    found = cycles(import_graph())
    assert not found, "import circles in desktop_agent.core:\n" + "\n".join(" → ".join(c) for c in found)


def test_the_graph_sees_late_imports_and_skips_type_checking_ones():
    """The checker itself: a circle closed by an import inside a function is found; one under
    ``TYPE_CHECKING`` is not an edge."""
    late = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import a.x\n"
                     "def f():\n    from a import y\n")
    names = [n.module if isinstance(n, ast.ImportFrom) else n.names[0].name for n in _imports(late)]
    assert names == ["typing", "a"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    assert _with_packages("p.q.m", "p.q.n") == {"p.q.n"}
    assert _with_packages("p.m", "p.q.n") == {"p.q", "p.q.n"}
