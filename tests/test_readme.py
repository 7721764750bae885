"""The README's embedding example runs as written (headless, in its own process: one GL window
per process) and draws water and the crate."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"

DRIVER = textwrap.dedent(
    """
    import numpy as np
    game = Game()
    y0 = game.crate.position.y
    for _ in range(90):
        game.on_fixed_update(1 / 60)
    game.on_draw()
    img = np.asarray(arcade.get_image(0, 0, *game.get_size()).convert("RGB")).astype(int)
    blue = (img[..., 2] > img[..., 0] + 40).mean()
    print("RESULT", game.world.fluid.count, y0, game.crate.position.y, blue)
    """
)


def _embedding_example() -> str:
    text = README.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    example = [b for b in blocks if "class Game(arcade.Window)" in b]
    assert example, "README has no embedding example"
    return example[0].replace('if __name__ == "__main__":', "if False:")


@pytest.mark.gl
def test_readme_embedding_example_runs_and_draws(tmp_path):
    script = tmp_path / "example.py"
    script.write_text(_embedding_example() + DRIVER)
    env = dict(os.environ, ARCADE_HEADLESS="1")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=600)
    if proc.returncode != 0 and "FLUIDWORLD_REQUIRE_GL" not in os.environ and (
        "EGL" in proc.stderr or "NoSuchDisplay" in proc.stderr
    ):
        pytest.skip(f"no GL context: {proc.stderr[-300:]}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")][-1]
    count, y0, y1, blue = (float(v) for v in line.split()[1:])
    assert count > 1000
    assert y1 < y0 - 30          # the crate fell towards the water ...
    assert y1 > 100              # ... and floats on it (pool is ~140 deep) instead of sinking
    assert blue > 0.1            # water pixels on screen


def _level_tutorial() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    example = [b for b in blocks if "class Lock(Level)" in b]
    assert example, "README has no level tutorial"
    return example[0]


def test_readme_level_tutorial_runs_as_written(tmp_path):
    from fluidworld.levels import LevelSession

    path = tmp_path / "lock.py"
    path.write_text(_level_tutorial())
    session = LevelSession(str(path))
    assert session.error is None, session.error
    level, world = session.level, session.world
    n0 = world.fluid.count
    for _ in range(110):                       # 1.83 s: the gate is still shut
        session.step()
    assert level.gate.alive
    for _ in range(40):                        # 2.5 s: the timer has opened it
        session.step()
    assert not level.gate.alive
    assert session.error is None
    emitter = [e for e in world.entities if type(e).__name__ == "Emitter"][0]
    assert emitter.emitted == 500              # exactly 200 particles/s for 2.5 s
    drained = sum(d.removed for d in world.entities if type(d).__name__ == "Drain")
    assert world.fluid.count == n0 + emitter.emitted - drained
