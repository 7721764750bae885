"""Connected water stands level: the gap between two static boxes against the water outside.

Two static boxes 72 x 24, bottoms 7.6 under a pool filled 100 deep (320 wide, game preset),
``gap`` apart and shifted by ``shift`` from the middle; the water level (95th percentile of the
particles over 60) between them less the level outside them, over seconds 4-10, with the cell
pressure's default surface and with ``FluidParams(surface_ghost=True)`` (hydrostatics: 0).

Run: ``python benchmarks/surface_levels.py``
"""

from __future__ import annotations

import numpy as np

from fluidworld import World
from fluidworld.fluid import FluidParams

CASES = [(34.0, 0.0), (34.0, 5.0), (44.0, 0.0), (60.0, 0.0)]


def gap_level(gap: float, shift: float, ghost: bool) -> float:
    w = World(320.0, 240.0, params=FluidParams.game(320.0, 240.0, surface_ghost=ghost))
    w.add_fluid_rect(0.0, 0.0, 320.0, 100.0)
    left = 160.0 + shift - 0.5 * gap - 72.0
    right = 160.0 + shift + 0.5 * gap
    for x0 in (left, right):
        w.add_static_poly([(x0, 92.4), (x0 + 72.0, 92.4), (x0 + 72.0, 116.4), (x0, 116.4)])
    diffs = []
    for step in range(600):
        w.step()
        if step >= 240 and step % 6 == 0:
            p = w.fluid.positions
            p = p[p[:, 1] > 60.0]
            x = p[:, 0]
            inside = p[(x > left + 74.0) & (x < right - 2.0), 1]
            outside = p[((x > 10.0) & (x < left - 10.0)) | ((x > right + 82.0) & (x < 310.0)), 1]
            diffs.append(np.percentile(inside, 95) - np.percentile(outside, 95))
    return float(np.mean(diffs))


def main() -> None:
    print("| gap | shift | default: gap - outside | surface_ghost: gap - outside |")
    print("| ---: | ---: | ---: | ---: |")
    for gap, shift in CASES:
        print(f"| {gap:g} | {shift:g} | {gap_level(gap, shift, False):+.2f} | "
              f"{gap_level(gap, shift, True):+.2f} |", flush=True)


if __name__ == "__main__":
    main()
