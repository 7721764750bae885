"""Check an installed fluidworld from an empty folder, as a user meets it after ``pip install``.

CI builds the wheel, installs it (not editable) into a fresh venv and runs this script with that
venv's Python from an empty folder. It checks that:

1. ``fluidworld`` is imported from the install, not from a checkout;
2. ``fluidworld levels`` lists the built-in demos;
3. ``fluidworld play`` (headless) and ``fluidworld render`` draw every demo, and
   ``python -m fluidworld.demos.harbor`` runs;
4. bodies are drawn with their textures: the crates of ``floating_crates`` are crate-brown,
   not the grey fallback shape.

Run: ``python scripts/check_install.py [--frames N]`` (exit status 0 when all hold).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def _run(*args: str, cwd: Path) -> str:
    env = dict(os.environ, ARCADE_HEADLESS="1")
    proc = subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=900)
    if proc.returncode != 0:
        raise SystemExit(f"FAILED: {' '.join(args)}\n{proc.stdout}\n{proc.stderr}")
    return proc.stdout


def _textured_pixels(png: Path) -> int:
    """Pixels in the crate texture's colours (brown: red well above blue, green between)."""
    import numpy as np
    from PIL import Image

    rgb = np.asarray(Image.open(png).convert("RGB")).astype(int)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    return int(((r > 100) & (r - b > 60) & (g > b) & (r > g)).sum())


def main(argv: list[str] | None = None) -> int:
    """Run the checks; print one line per check."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--frames", type=int, default=2)
    args = ap.parse_args(argv)
    py = sys.executable
    cli = str(Path(py).parent / "fluidworld")  # this interpreter's script, not one on PATH
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        where = _run(py, "-c", "import fluidworld; print(fluidworld.__file__)", cwd=cwd).strip()
        if "site-packages" not in where:
            raise SystemExit(f"FAILED: fluidworld imported from {where}, not from an install")
        print(f"ok  fluidworld from {where}")
        listing = _run(cli, "levels", cwd=cwd)
        names = [line.split()[0] for line in listing.splitlines()
                 if line and not line.startswith(("*", " "))]
        if len(names) < 8:
            raise SystemExit(f"FAILED: fluidworld levels listed {names}")
        print(f"ok  fluidworld levels: {', '.join(names)}")
        _run(cli, "play", "--frames", str(args.frames), cwd=cwd)
        if not (cwd / "out" / "floating_crates.gif").is_file():
            raise SystemExit("FAILED: fluidworld play (headless) wrote no out/floating_crates.gif")
        print("ok  fluidworld play (headless) -> out/floating_crates.gif")
        for name in names:
            _run(cli, "render", name, "--frames", str(args.frames), "--quiet",
                 "--out", f"{name}.png", cwd=cwd)
        print(f"ok  fluidworld render: {len(names)} demos")
        _run(py, "-m", "fluidworld.demos.harbor", "--frames", str(args.frames), "--quiet",
             "--out", "harbor_m.png", cwd=cwd)
        print("ok  python -m fluidworld.demos.harbor")
        brown = _textured_pixels(cwd / "floating_crates.png")
        if brown < 1000:
            raise SystemExit(f"FAILED: only {brown} crate-coloured pixels in floating_crates.png: "
                             "the body textures were not found")
        print(f"ok  textures: {brown} crate-coloured pixels in floating_crates.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
