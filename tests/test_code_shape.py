"""The code keeps the shape issue 18 asks for: short files, numba kernels that take grouped
arrays (at most 12 arguments), and a coupling that reads the fluid through public members."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "fluidworld"
MAX_LINES = 600
MAX_KERNEL_ARGS = 12


def _sources() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _is_kernel(fn: ast.FunctionDef) -> bool:
    names = [ast.unparse(d) for d in fn.decorator_list]
    return any(re.match(r"(numba\.)?(njit|jit)\b", n) for n in names)


def test_no_file_is_longer_than_600_lines() -> None:
    """The package's modules, and the tests and benchmarks beside it."""
    root = PACKAGE.parent
    files = _sources() + sorted((root / "tests").glob("*.py")) + sorted(
        (root / "benchmarks").glob("*.py"))
    long = {p.relative_to(root).as_posix(): n for p in files
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert len(files) > 150 and not long, long


def test_no_kernel_takes_more_than_12_arguments() -> None:
    wide = {}
    kernels = 0
    for p in _sources():
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.FunctionDef) and _is_kernel(node):
                kernels += 1
                a = node.args
                n = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                if n > MAX_KERNEL_ARGS:
                    wide[f"{p.relative_to(PACKAGE).as_posix()}::{node.name}"] = n
    assert kernels > 100  # the walk found the kernels (a decorator rename would hide them)
    assert not wide, wide


def test_the_coupling_reads_the_fluid_through_public_members_only() -> None:
    """``fluid._x`` / ``f._x`` (``f = self.fluid``) nowhere in the coupling or the World."""
    private = re.compile(r"\b(fluid|f)\._[A-Za-z]")
    files = [*sorted((PACKAGE / "coupling").glob("*.py")), *sorted(PACKAGE.glob("world*.py"))]
    hits = [f"{p.name}:{k + 1}" for p in files
            for k, line in enumerate(p.read_text().splitlines()) if private.search(line)]
    assert len(files) > 8 and not hits, hits
