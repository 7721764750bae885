"""Rerun the five dam-break set-ups of the paper's Table 1 and compare with its timings.

    python benchmarks/paper_table1.py [--steps 200] [--solver paper|converged]

Per row: a0, gamma and the particle count exactly as published, our median ms/step over
``--steps`` steps after warm-up (best of ``--rounds`` replays of the same steps, see
``_common.py``; all rounds' medians are printed), the share of local repulsion and of cell
pressure, the paper's figures (Processing on a CPU, 2020) and the speed-up. Uses the paper
preset (pixels, 640x640, dt 0.1, g 9.81, 3 repulsion passes, k = 10 Jacobi iterations).
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from _common import time_steps  # noqa: E402

from fluidworld import scenes  # noqa: E402
from fluidworld.fluid import FluidParams  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--solver", default="paper", choices=["paper", "converged"])
    args = ap.parse_args(argv)
    import numba

    print(f"paper Table 1 dam break, solver={args.solver}, numba threads={numba.get_num_threads()}")
    hdr = (f"{'a0':>4} {'gamma':>5} {'particles':>9} {'cells':>6} | {'ms/step':>8} "
           f"{'%rep':>5} {'%press':>6} | {'paper ms':>9} {'%rep':>5} {'%press':>6} | "
           f"{'speed-up':>8} | rounds' medians")
    print(hdr)
    print("-" * len(hdr))
    for a0, gamma, count, _cells, ms_paper, rep_paper, press_paper in scenes.TABLE1:
        params = FluidParams.paper(a0=a0, gamma=gamma, pressure_solver=args.solver)
        fs = scenes.dam_break(params, count=count)
        t = time_steps(fs, args.steps, rounds=args.rounds)
        ms, st = t.ms, t.stages
        total = sum(st.values()) or 1.0
        ny, nx = fs.grid_shape
        print(f"{a0:4.0f} {gamma:5.0f} {fs.count:9d} {nx * ny:6d} | {ms:8.3f} "
              f"{100 * st['local_repulsion'] / total:4.0f}% "
              f"{100 * st['cell_pressure'] / total:5.0f}%"
              f" | {ms_paper:9.3f} {rep_paper:4d}% {press_paper:5d}% | {ms_paper / ms:7.1f}x"
              f" | {t.spread}", flush=True)


if __name__ == "__main__":
    main()
