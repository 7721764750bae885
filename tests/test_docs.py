"""Every ```python block of the README and of docs/*.md runs as written and passes mypy.

Blocks run in a fresh process each (one GL window per process), headless, from an empty folder,
as a module not named ``__main__`` (so ``if __name__ == "__main__": arcade.run()`` is skipped).
A block that defines a ``Level`` subclass is also built and stepped; a block that defines an
``arcade.Window`` subclass is also opened and driven for a few fixed updates and a draw.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _blocks() -> list[tuple[str, str]]:
    out = []
    for doc in DOCS:
        for k, code in enumerate(re.findall(r"```python\n(.*?)```", doc.read_text(), re.S)):
            out.append((f"{doc.stem}_{k}", code))
    return out


BLOCKS = _blocks()

DRIVER = textwrap.dedent(
    """
    import runpy, sys
    ns = runpy.run_path(sys.argv[1], run_name="docblock")
    import arcade as _arcade_probe  # noqa: E402  (only the render tests have it)
    from fluidworld.levels import Level, LevelSession
    for name, value in list(ns.items()):
        if isinstance(value, type) and issubclass(value, Level) and value is not Level:
            session = LevelSession(value)
            assert session.error is None, session.error
            for _ in range(30):
                session.step()
            assert session.world.fluid.count > 0
            print("LEVEL", name, session.world.fluid.count)
        if isinstance(value, type) and issubclass(value, _arcade_probe.Window) \\
                and value is not _arcade_probe.Window:
            game = value()
            for _ in range(10):
                game.on_fixed_update(1 / 60)
            game.on_draw()
            print("WINDOW", name)
            game.close()
    print("OK")
    """
)


def test_the_docs_have_code_blocks() -> None:
    names = {name.rsplit("_", 1)[0] for name, _ in BLOCKS}
    assert {"README", "tutorial"} <= names
    assert len(BLOCKS) >= 7


@pytest.mark.gl
@pytest.mark.parametrize("name,code", BLOCKS, ids=[n for n, _ in BLOCKS])
def test_code_block_runs_as_written(name: str, code: str, tmp_path: Path) -> None:
    script = tmp_path / f"{name}.py"
    script.write_text(code)
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    env = dict(os.environ, ARCADE_HEADLESS="1")
    proc = subprocess.run([sys.executable, str(driver), str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert proc.stdout.rstrip().endswith("OK")
    if "(Level)" in code:
        assert "LEVEL" in proc.stdout
    if "(arcade.Window)" in code:
        assert "WINDOW" in proc.stdout


def test_code_blocks_pass_mypy(tmp_path: Path) -> None:
    paths = []
    for name, code in BLOCKS:
        path = tmp_path / f"{name}.py"
        path.write_text(code)
        paths.append(str(path))
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--python-version", "3.11",
         "--config-file", str(ROOT / "pyproject.toml"), *paths],
        cwd=tmp_path, capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_docstring_examples_run() -> None:
    """Every ``>>>`` example in the package's docstrings gives what it shows."""
    import doctest
    import importlib
    import pkgutil

    import fluidworld

    attempted = 0
    failed: list[str] = []
    for info in pkgutil.walk_packages(fluidworld.__path__, "fluidworld."):
        if info.name == "fluidworld.__main__" or info.name.startswith((
                "fluidworld.render", "fluidworld.demos", "fluidworld.levels.play",
                "fluidworld.levels.game", "fluidworld.levels.hud")):
            continue  # they open windows (their docstrings hold no examples)
        mod = importlib.import_module(info.name)
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        attempted += res.attempted
        if res.failed:
            failed.append(info.name)
    assert not failed, failed
    assert attempted >= 7
