"""Package-level behaviour: what importing fluidworld sets up."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path


def _omp_env(env: dict[str, str]) -> tuple[str, str]:
    code = ("import os, fluidworld; "
            "print(os.environ.get('GOMP_SPINCOUNT', '-'), os.environ.get('OMP_WAIT_POLICY', '-'))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, timeout=300)
    spin, policy = out.stdout.split()
    return spin, policy


def test_idle_openmp_workers_spin_briefly_unless_the_application_chose():
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    assert _omp_env(env) == ("10000", "-")
    # an application's own choice wins, whichever variable it set
    assert _omp_env({**env, "GOMP_SPINCOUNT": "5"}) == ("5", "-")
    assert _omp_env({**env, "OMP_WAIT_POLICY": "PASSIVE"}) == ("-", "PASSIVE")


ROOT = Path(__file__).resolve().parents[1]


def _source_tree(dest: Path) -> Path:
    """A copy of what a clean clone holds for the build (no build/ or egg-info leftovers)."""
    dest.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, dest / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc", "*.egg-info")
    for folder in ("fluidworld", "assets", "demos"):
        shutil.copytree(ROOT / folder, dest / folder, ignore=ignore)
    return dest


def test_wheel_ships_textures_and_demos_inside_the_package(tmp_path: Path) -> None:
    """The wheel holds every module of the source tree, the textures as ``fluidworld.assets``
    and the demos as ``fluidworld.demos``, and nothing at the top level but ``fluidworld``."""
    src = _source_tree(tmp_path / "src")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "-o", str(tmp_path), "."],
        cwd=src, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (wheel,) = tmp_path.glob("fluidworld-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    top = {n.split("/", 1)[0] for n in names if not n.startswith("fluidworld-")}
    assert top == {"fluidworld"}
    wanted = {f"fluidworld/{p.relative_to(ROOT / 'fluidworld').as_posix()}"
              for p in (ROOT / "fluidworld").rglob("*.py")}
    wanted |= {f"fluidworld/assets/{p.name}" for p in (ROOT / "assets").iterdir()
               if p.suffix in (".png", ".py", ".md")}
    wanted |= {f"fluidworld/demos/{p.name}" for p in (ROOT / "demos").glob("*.py")}
    wanted |= {"fluidworld/py.typed"}
    assert wanted - names == set()
    assert {"fluidworld/assets/crate.png", "fluidworld/demos/harbor.py"} <= names


def test_textures_are_found_through_importlib_resources() -> None:
    import importlib.resources

    from fluidworld.render import ASSETS_DIR

    assert ASSETS_DIR == Path(str(importlib.resources.files("fluidworld.assets")))
    assert {"crate.png", "ball.png", "barrel.png", "anvil.png", "plank.png", "boat.png"} <= {
        p.name for p in ASSETS_DIR.iterdir()}
