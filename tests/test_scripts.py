"""scripts/play and scripts/test on a machine whose system Python refuses pip (PEP 668).

The "system" Python is a copy of this interpreter's base installation (its standard library, no
site-packages but pip) with an ``EXTERNALLY-MANAGED`` file in its stdlib folder, first on PATH:
``pip install`` into it fails as on Debian or Ubuntu, so the scripts succeed only if they make
and use their own environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _managed_python(root: Path) -> Path:
    """A Python installation at ``root`` marked externally managed; returns its bin folder."""
    ver = f"python{sys.version_info.major}.{sys.version_info.minor}"
    base = Path(sys.base_prefix)
    stdlib = Path(sysconfig.get_path("stdlib", vars={"installed_base": sys.base_prefix}))
    lib = root / "lib" / ver
    shutil.copytree(stdlib, lib, copy_function=_link_or_copy, ignore=shutil.ignore_patterns(
        "site-packages", "dist-packages", "__pycache__", "test", "idlelib", "tkinter"))
    site = lib / "site-packages"
    site.mkdir()
    import pip

    shutil.copytree(Path(pip.__file__).parent, site / "pip", copy_function=_link_or_copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    (lib / "EXTERNALLY-MANAGED").write_text(
        "[externally-managed]\nError=this Python is managed by the system (test)\n")
    bindir = root / "bin"
    bindir.mkdir()
    shutil.copy2(base / "bin" / ver, bindir / ver)
    for alias in ("python3", "python"):
        (bindir / alias).symlink_to(ver)
    return bindir


def test_scripts_use_their_own_environment_when_the_system_python_is_managed(
        tmp_path: Path) -> None:
    bindir = _managed_python(tmp_path / "system")
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "DISPLAY", "WAYLAND_DISPLAY")}
    env["PATH"] = f"{bindir}{os.pathsep}{env['PATH']}"
    env["FLUIDWORLD_VENV"] = str(tmp_path / "venv")
    probe = subprocess.run(["python3", "-c", "import sys; print(sys.prefix)"], env=env,
                           capture_output=True, text=True, timeout=60)
    assert probe.stdout.strip() == str(tmp_path / "system"), probe.stderr
    refused = subprocess.run(["python3", "-m", "pip", "install", "--no-index", "six"], env=env,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "externally-managed" in refused.stderr

    test = subprocess.run(
        ["bash", "scripts/test", "tests/test_package.py", "-k", "importlib_resources",
         "-p", "no:cacheprovider"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500)
    assert test.returncode == 0, test.stdout[-2000:] + test.stderr[-2000:]
    assert "1 passed" in test.stdout
    venv_python = tmp_path / "venv" / "bin" / "python"
    assert venv_python.exists()

    out = tmp_path / "play.gif"
    play = subprocess.run(["bash", "scripts/play", "--frames", "1", "--quiet", "--out", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500)
    assert play.returncode == 0, play.stdout[-2000:] + play.stderr[-2000:]
    assert out.is_file() and out.stat().st_size > 1000
    # nothing went into the "system" interpreter
    assert sorted(p.name for p in (bindir.parent / "lib").glob("*/site-packages/*")) == ["pip"]
