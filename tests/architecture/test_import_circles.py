"""No import circles anywhere in controller/: a module never imports, directly or through others, a module that
imports it back. lint-imports (pyproject.toml) checks the modules of each package among themselves; this finds
a circle through modules of different packages too, on the same import graph (grimp, which import-linter uses).
Imports under ``if TYPE_CHECKING:`` and inside functions count: each is an import a reader must follow."""

from __future__ import annotations

import grimp
import pytest

#: Circles known and left for now, each as the set of its modules (pyproject.toml names the same ones).
KNOWN: tuple[frozenset[str], ...] = ()


def circles(graph: grimp.ImportGraph, package: str) -> list[frozenset[str]]:
    """The strongly connected groups of two or more modules under ``package`` (Tarjan's algorithm, without
    recursion: the graph is a few hundred modules)."""
    modules = sorted(m for m in graph.modules if m == package or m.startswith(package + "."))
    inside = set(modules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in modules:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root) & inside)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child) & inside))))
                elif child in on_stack:
                    low[module] = min(low[module], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
            if low[module] == index[module]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == module:
                        break
                if len(group) > 1:
                    found.append(frozenset(group))
    return found


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("controller", include_external_packages=False)


def test_no_module_of_controller_is_in_an_import_circle(graph):
    new = [sorted(c) for c in circles(graph, "controller") if c not in KNOWN]
    assert new == [], f"import circles: {new}"


def test_the_circle_finder_finds_a_circle_of_three_and_leaves_a_chain_alone():
    graph = grimp.ImportGraph()
    for module in ("pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.d"):
        graph.add_module(module)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.c")
    graph.add_import(importer="pkg.c", imported="pkg.a")
    graph.add_import(importer="pkg.c", imported="pkg.d")
    assert circles(graph, "pkg") == [frozenset({"pkg.a", "pkg.b", "pkg.c"})]
