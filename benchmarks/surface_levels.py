"""Connected water stands level: the gap between two static boxes against the water outside.

Two static boxes 72 x 24, bottoms 7.6 under a pool filled 100 deep (320 wide, game preset),
``gap`` apart and shifted by ``shift`` from the middle; the water level (95th percentile of the
particles over 60) between them less the level outside them, over seconds 4-10, with the cell
pressure's default surface and with ``FluidParams(surface_ghost=True)`` (hydrostatics: 0).

Run: ``python benchmarks/surface_levels.py``
"""

from __future__ import annotations

from fluidworld.fidelity.stability import gap_level

CASES = [(34.0, 0.0), (34.0, 5.0), (44.0, 0.0), (60.0, 0.0)]


def main() -> None:
    print("| gap | shift | default: gap - outside | surface_ghost: gap - outside |")
    print("| ---: | ---: | ---: | ---: |")
    for gap, shift in CASES:
        print(f"| {gap:g} | {shift:g} | {gap_level(gap, shift, False):+.2f} | "
              f"{gap_level(gap, shift, True):+.2f} |", flush=True)


if __name__ == "__main__":
    main()
