"""Jelly: what the springs cost and what they hold, per solver.

    python benchmarks/jelly.py [--blocks 6] [--steps 60] [--rounds 3] [--settle 120]

The same scene twice per solver, in one process: a 30-deep pool 640 wide with ``--blocks`` blocks
of 80 x 60 dropped onto it, once as water and once as jelly (``Material(elasticity=0.5)``,
springs between each block's particles within 1.8 spacings). Prints ms/step of each (the best
of ``--rounds`` replays of the same steps, ``_common.py``), their ratio, the springs and, after
``--settle`` more steps, the jelly's height (max - min y of its particles: the blocks land on
the pool and stand ~60 high; as water they would run flat).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import WorldSteps, time_steps  # noqa: E402

from fluidworld import World  # noqa: E402
from fluidworld.fluid import Material  # noqa: E402
from fluidworld.fluid.params import default_materials  # noqa: E402

JELLY = Material("jelly", (235, 70, 130, 255), elasticity=0.5, mix_group="jelly")


def scene(solver: str, material: str, blocks: int) -> World:
    w = World(640.0, 360.0, materials=(*default_materials(), JELLY), solver=solver)
    w.add_fluid_rect(0.0, 0.0, 640.0, 30.0)
    for k in range(blocks):
        x = 20.0 + k * (600.0 / blocks)
        w.add_fluid_rect(x, 120.0, x + 80.0, 180.0, material=material)
    return w


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", type=int, default=6)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--settle", type=int, default=120, help="steps before the height")
    args = ap.parse_args(argv)
    print(f"{'solver':>10} {'particles':>9} {'springs':>7} {'water ms':>8} {'jelly ms':>8} "
          f"{'ratio':>6} {'jelly height':>12}")
    for solver in ("srd", "ddr", "constraint"):
        ms = {}
        worlds = {}
        for material in ("water", "jelly"):
            w = scene(solver, material, args.blocks)
            ms[material] = time_steps(WorldSteps(w), args.steps, warmup=60,  # type: ignore[arg-type]
                                      rounds=args.rounds).ms
            worlds[material] = w
        j = worlds["jelly"]
        for _ in range(args.settle):
            j.step()
        h = float(np.ptp(j.fluid.positions[j.fluid.materials == j.material_id("jelly"), 1]))
        print(f"{solver:>10} {j.fluid.count:9d} {j.fluid.spring_count:7d} {ms['water']:8.2f} "
              f"{ms['jelly']:8.2f} {ms['jelly'] / ms['water']:6.2f} {h:12.1f}", flush=True)


if __name__ == "__main__":
    main()
