"""Fidelity table: the fluid's measured physics beside theory, at the game preset.

Archimedes in water, oil and honey, layering by density, each material's kinematic viscosity,
wall crossings under load, calm-water rotation and drift, volume drift after a dam break. The
scenes and measurements live in :mod:`fluidworld.fidelity` (the tests assert on the same ones).

Run: ``python benchmarks/fidelity.py [--quick] [--only multiphase,viscosity,...] [--markdown]``
"""

from __future__ import annotations

import argparse
import sys
import time

from fluidworld.fidelity import MODULES, collect


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer seeds and shorter runs")
    ap.add_argument("--only", default="", help=f"comma-separated subset of {', '.join(MODULES)}")
    ap.add_argument("--markdown", action="store_true", help="print a README table")
    args = ap.parse_args(argv)
    only = tuple(s for s in args.only.split(",") if s)
    t0 = time.perf_counter()
    rows = collect(quick=args.quick, only=only)
    if args.markdown:
        print("| group | measured | value | expected | ok |")
        print("| --- | --- | ---: | --- | --- |")
        for r in rows:
            print(f"| {r.group} | {r.name} | {r.measured:.3g} | {r.expected} | "
                  f"{'yes' if r.ok else '**no**'} |")
    else:
        width = max((len(r.name) for r in rows), default=10)
        group = None
        for r in rows:
            if r.group != group:
                group = r.group
                print(f"\n== {group}")
            print(f"  {r.name:<{width}}  {r.measured:10.4g}   expected {r.expected:<18} "
                  f"{'ok' if r.ok else 'MISSED'}")
    missed = sum(not r.ok for r in rows)
    print(f"\n{len(rows)} figures, {missed} missed, {time.perf_counter() - t0:.0f} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
