"""The product never reaches into tests/: not by an import (pyproject.toml's contract ``product-not-tests``,
lint-imports) and not by a path either, as ``tianhei bus-sim`` once ran tests/firmware/fakes/simnode.py (a Pi
installed without the tests would have failed). What both need lives in controller/ (controller/sim/seatnode)."""

from __future__ import annotations

import ast
from pathlib import Path

import controller
from controller.sim.seatnode import FAKE_MACHINE, SIMNODE

PACKAGE = Path(controller.__file__).resolve().parent


def docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring constants of a module, its classes and functions (prose may name a test)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def names_tests(text: str) -> bool:
    return text == "tests" or text.startswith("tests/") or "/tests/" in text


def test_no_module_of_the_product_builds_a_path_into_the_tests_folder() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if "tests" not in source:
            continue
        tree = ast.parse(source)
        prose = docstrings(tree)
        found += [f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.value!r}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose
                  and names_tests(node.value)]
    assert not found, "the product names a file under tests/:\n" + "\n".join(found)


def test_the_check_finds_the_path_bus_sim_used_to_build() -> None:
    tree = ast.parse('SIMNODE = REPO / "tests" / "firmware" / "fakes" / "simnode.py"\n')
    assert any(isinstance(n, ast.Constant) and names_tests(n.value) for n in ast.walk(tree))


def test_the_simulated_node_the_product_runs_is_in_the_package() -> None:
    assert SIMNODE.is_file() and FAKE_MACHINE.is_file()
    assert PACKAGE in SIMNODE.parents and SIMNODE.parent == FAKE_MACHINE.parent
