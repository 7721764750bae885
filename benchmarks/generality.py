"""The acceptance scenes at other sizes: does the general case hold, or only the tested one?

The tests measure floating, sinking, resting and calm bodies in a few fixed scenes (a 72 x 24
box, a ball of radius 20, pools 100 deep, 320 wide). This benchmark builds the same kinds of
scene from the public API alone (``World(width, height, solver=...)``, ``add_fluid_rect``,
``add_box`` / ``add_ball``, ``step``) over other body sizes and shapes, pool depths and widths,
for each solver, and prints one row per case with the measured figure, the bound the tests use
and whether it holds; then a summary of the cases that miss.

Cases:

* ``float`` -- a body of ``ratio x`` the fluid's density let down onto the pool (its lowest
  point a unit above the fill); after 8 s its submerged fraction averaged over the last 3 s
  (against the surface measured beside it). Bound: within 0.05 of ``ratio``.
* ``sink`` -- the same with ``ratio > 1``: its lowest point after 8 s (in honey, ~11x water's
  viscosity, 30 s: ``fidelity.buoyancy.SINK_SECONDS``). Bound: two body heights below the
  fill depth, or on the floor (within a particle spacing ``r_l`` of it: a body on one layer of
  particles lies on the floor).
* ``rest`` -- a pool at rest (widths 200-1024, also ones that are not a whole number of
  10-unit cells): mean particle speed over its 5th-10th second over ``sqrt(g d)``. Bound:
  0.01.
* ``walls`` -- thin static segments under load (ramps at 30-60 degrees meeting a floor,
  closed polygons full of water with a heavy ball inside, a floor under deep water; radius
  0-2): the most particles across any wall in 10 s. Bound: 0, none lost.
* ``calm`` -- a floating body put at its Archimedes draft into still water (the fill leaves it
  out), settled 1 s: its largest turn and drift over 10 s. Bound: 30 degrees and 0.25 of its
  size.
* ``vary`` -- the ``float`` case (a box 72 x 24 and a ball of radius 20 at 0.4 and 0.8, pool
  100 deep) with one thing changed: another seed (``seed 1``, ``seed 2``), one or three
  substeps (``substeps 1``, ``substeps 3``), gravity 500 or 1500 (``g 500``, ``g 1500``), a
  box let down tilted by 30 degrees (``tilt``), the body 12 units from the left wall
  (``wall``), two bodies side by side (``pair``), a world 400 units taller than the pool
  (``tall``). They run 16 s and average the last 8 (two bodies dropped side by side set the
  pool sloshing for longer than one); beside a wall or the other body the level is read on
  the open side only. Bound: within 0.05 of ``ratio`` (every body of the case).
* ``contrast`` -- a block 100 x 50 of an immiscible material of ``ratio x`` water's density
  (0.01-100) laid on water 50 deep (300 x 200 tank), 4 s: the fastest particle, and the two
  materials' median heights. Bound: the lighter above the heavier, no NaN, and the fastest
  under 2,000 units/s (water on water: ~480; a heavy block plunging: ~1,000; the speed cap
  of a fluid that blew up: 4,800).
* ``pour`` -- an emitter (400 particles/s, 100 units/s, straight down) left running for 10 s
  in a closed box (200 x 150 and 400 x 80: 4,000 particles offered, room for 1,500 and 1,600):
  the fastest particle over seconds 8-10. Bound: no more particles than
  ``World.domain_capacity()`` (emitters stop there), under 200 units/s, ``check()`` clean.

Each case runs in its own worker process with one numba thread; ``--jobs`` sets how many run
at once (default: the cores; 1: all in this process).

Run: ``python benchmarks/generality.py [--jobs N]
[--only float,sink,rest,calm,walls,vary,contrast,pour] [--solvers srd,ddr,constraint] [--quick]
[--limit N] [--json PATH]``
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from typing import Any

BOXES = ((72.0, 24.0), (40.0, 40.0), (100.0, 30.0), (30.0, 16.0))
BALLS = (20.0, 12.0, 32.0)
FLUIDS = ("water", "oil", "honey")


@dataclass
class Case:
    """One scene: what it is and what it measured."""

    kind: str
    solver: str
    material: str = "water"
    shape: str = ""  # "box WxH" or "ball R"
    ratio: float = 0.0
    depth: float = 100.0
    width: float = 320.0
    value: float = math.nan
    extra: dict[str, float] = field(default_factory=dict)
    ok: bool = False
    bound: str = ""
    seconds: float = 0.0
    variant: str = ""  # ``vary`` cases: what differs from the ``float`` case


def _body(w: Any, shape: str, x: float, bottom: float, density: float) -> Any:
    kind, size = shape.split()
    if kind == "box":
        bw, bh = (float(v) for v in size.split("x"))
        return w.add_box((x, bottom + 0.5 * bh), (bw, bh), density=density)
    r = float(size)
    return w.add_ball((x, bottom + r), r, density=density)


def _height(shape: str) -> float:
    kind, size = shape.split()
    return float(size.split("x")[1]) if kind == "box" else 2.0 * float(size)


def _float_or_sink(c: Case) -> None:
    import numpy as np

    from fluidworld import World
    from fluidworld.fidelity import buoyancy as B

    w = World(c.width, c.depth + 120.0, solver=c.solver)
    w.add_fluid_rect(0.0, 0.0, c.width, c.depth, material=c.material)
    rho = c.ratio * B.fluid_density(w, c.material)
    e = _body(w, c.shape, 0.5 * c.width, c.depth + 1.0, rho)
    fr = []
    steps = 480 if c.kind == "float" else int(round(60 * B.SINK_SECONDS[c.material]))
    for i in range(steps):
        w.step()
        if i >= 300 and i % 3 == 0 and c.kind == "float":
            x0, _, x1, _ = w.coupler.body_box[w.coupler.body_index(e.body)]
            fr.append(B.submerged_fraction(e, B.surface_beside(w, x0, x1)))
    bottom = float(e.shape.cache_bb().bottom)
    c.extra["bottom"] = round(bottom, 1)
    if c.kind == "float":
        c.value = float(np.mean(fr))
        c.ok = abs(c.value - c.ratio) <= 0.05
        c.bound = f"|f - {c.ratio}| <= 0.05"
    else:
        c.value = bottom
        need = max(c.depth - 2.0 * _height(c.shape), w.fluid.r_l + 0.5)
        c.ok = bottom <= need
        c.bound = f"bottom <= {need:.0f}"


def _vary_world(c: Case) -> Any:
    from fluidworld import FluidParams, World

    key, _, arg = c.variant.partition(" ")
    height = c.depth + (400.0 if key == "tall" else 120.0)
    changes: dict[str, Any] = {}
    if key == "seed":
        changes["seed"] = int(arg)
    elif key == "substeps":
        changes["substeps"] = int(arg)
    elif key == "g":
        changes["gravity"] = (0.0, -float(arg))
    params = FluidParams.game(c.width, height, **changes)
    return World(c.width, height, params=params, solver=c.solver)


def _vary(c: Case) -> None:
    import numpy as np

    from fluidworld.fidelity import buoyancy as B

    w = _vary_world(c)
    w.add_fluid_rect(0.0, 0.0, c.width, c.depth, material=c.material)
    rho = c.ratio * B.fluid_density(w, c.material)
    kind, size = c.shape.split()
    span = float(size.split("x")[0]) if kind == "box" else 2.0 * float(size)
    # (centre x, side to read the level on: -1 left only, 1 right only, 0 both)
    at = {"wall": [(12.0 + 0.5 * span, 1)],
          "pair": [(c.width / 3.0, -1), (2.0 * c.width / 3.0, 1)]}.get(c.variant,
                                                                     [(0.5 * c.width, 0)])
    if c.variant == "tilt":
        bw, bh = (float(v) for v in size.split("x"))
        bodies = [w.add_box((0.5 * c.width, c.depth + 20.0), (bw, bh), density=rho,
                            angle=math.radians(30.0))]
    else:
        bodies = [_body(w, c.shape, x, c.depth + 1.0, rho) for x, _ in at]
    fr: list[list[float]] = [[] for _ in bodies]
    for i in range(VARY_STEPS):
        w.step()
        if i >= VARY_STEPS // 2 and i % 3 == 0:
            for k, (e, (_, side)) in enumerate(zip(bodies, at, strict=False)):
                x0, _, x1, _ = w.coupler.body_box[w.coupler.body_index(e.body)]
                lo, hi = (-1e9 if side > 0 else x0), (1e9 if side < 0 else x1)
                fr[k].append(B.submerged_fraction(e, B.surface_beside(w, lo, hi)))
    values = [float(np.mean(f)) for f in fr]
    c.value = max(values, key=lambda v: abs(v - c.ratio))
    if len(values) > 1:
        c.extra["other"] = round(min(values, key=lambda v: abs(v - c.ratio)), 3)
    c.extra["nan"] = float(not np.isfinite(w.fluid.positions).all())
    c.ok = abs(c.value - c.ratio) <= 0.05 and not c.extra["nan"]
    c.bound = f"|f - {c.ratio}| <= 0.05"


def _rest(c: Case) -> None:
    from fluidworld.fidelity.stability import rest_speed

    c.value = rest_speed(c.depth, width=c.width, solver=c.solver)  # 5th-10th s, game preset
    c.ok = c.value < 0.01
    c.bound = "< 0.01"


def _calm(c: Case) -> None:
    import numpy as np

    from fluidworld import World

    w = World(c.width, c.depth + 120.0, solver=c.solver)
    kind, size = c.shape.split()
    if kind == "box":
        bw, bh = (float(v) for v in size.split("x"))
        e = w.add_box((0.5 * c.width + 3.0, c.depth - c.ratio * bh + 0.5 * bh), (bw, bh),
                      density=c.ratio)
        span = bw
    else:
        r = float(size)
        lo, hi = 0.0, 2.0 * r  # the draft of a ball: bisection on the segment's area
        for _ in range(50):
            h = 0.5 * (lo + hi)
            seg = r * r * math.acos((r - h) / r) - (r - h) * math.sqrt(max(2 * r * h - h * h, 0))
            lo, hi = (h, hi) if seg < c.ratio * math.pi * r * r else (lo, h)
        e = w.add_ball((0.5 * c.width + 3.0, c.depth - 0.5 * (lo + hi) + r), r, density=c.ratio)
        span = 2.0 * r
    w.add_fluid_rect(0.0, 0.0, c.width, c.depth)
    for _ in range(60):
        w.step()
    a0, p0 = e.body.angle, np.array(e.body.position)
    turn = drift = 0.0
    for _ in range(600):
        w.step()
        turn = max(turn, abs(e.body.angle - a0))
        drift = max(drift, float(np.hypot(*(np.array(e.body.position) - p0))))
    c.value = math.degrees(turn)
    c.extra["drift"] = round(drift / span, 3)
    c.ok = c.value < 30.0 and drift / span < 0.25
    c.bound = "turn < 30, drift < 0.25"


def _wall_scene(c: Case) -> tuple[Any, Any]:
    """A world with thin walls and water against them, and the count of particles across.
    ``c.shape``: ``"ramp A R"`` (a ramp rising at A degrees from the end of a floor, both
    segments of radius R, ~1,900 particles dammed against the joint), ``"ngon N R"`` (a
    closed N-gon of segments of radius R full of water, a ball of density 3 dropped in) or
    ``"floor D R"`` (a floor segment of radius R under water D deep)."""
    import numpy as np

    from fluidworld import World

    kind, a, r = c.shape.split()
    r_ = float(r)
    if kind == "ramp":
        y, xj, t = 30.0, 200.0, math.radians(float(a))
        w = World(400.0, 280.0, solver=c.solver)
        w.add_static_segment((-10.0, y), (xj, y), radius=r_)
        w.add_static_segment((xj, y), (xj + 300.0 * math.cos(t), y + 300.0 * math.sin(t)),
                             radius=r_)
        w.add_fluid_rect(0.0, y + r_, 190.0, 200.0)
        return w, lambda p: int((p[:, 1] < np.where(p[:, 0] <= xj, y,
                                                     y + math.tan(t) * (p[:, 0] - xj))).sum())
    if kind == "ngon":
        n, ctr = int(a), np.array([100.0, 95.0])
        v = np.array([ctr + 70.0 * np.array([math.cos(math.pi / 2 + 2 * math.pi * i / n),
                                             math.sin(math.pi / 2 + 2 * math.pi * i / n)])
                      for i in range(n)])
        w = World(200.0, 200.0, solver=c.solver)
        for i in range(n):
            w.add_static_segment(tuple(v[i]), tuple(v[(i + 1) % n]), radius=r_)
        w.add_ball(tuple(ctr + (0.0, 10.0)), 12.0, density=3.0)
        w.add_fluid_polygon(v)

        def outside(p: Any) -> int:
            out = np.zeros(len(p), bool)
            for i in range(n):
                q, d = v[i], v[(i + 1) % n] - v[i]
                out |= d[0] * (p[:, 1] - q[1]) - d[1] * (p[:, 0] - q[0]) < 0.0
            return int(out.sum())
        return w, outside
    y, depth = 30.0, float(a)
    w = World(200.0, y + depth + 40.0, solver=c.solver)
    w.add_static_segment((-10.0, y), (210.0, y), radius=r_)
    w.add_fluid_rect(0.0, y + r_, 200.0, depth)
    return w, lambda p: int((p[:, 1] < y).sum())


def _walls(c: Case) -> None:
    import numpy as np

    w, across = _wall_scene(c)
    n0 = w.fluid.count
    worst = across(w.fluid.positions)
    for i in range(600):
        w.step()
        if i % 10 == 9:
            worst = max(worst, across(w.fluid.positions))
    c.value = float(worst)
    c.extra["lost"] = n0 - w.fluid.count
    finite = bool(np.isfinite(w.fluid.positions).all())
    c.ok = worst == 0 and n0 == w.fluid.count and finite
    c.bound = "0 across in 10 s, none lost"


def _contrast(c: Case) -> None:
    import numpy as np

    from fluidworld import Material, World
    from fluidworld.fluid import WATER

    other = Material("other", density=c.ratio, mix_group="other")
    w = World(300.0, 200.0, solver=c.solver, materials=(WATER, other))
    w.add_fluid_rect(0.0, 0.0, 300.0, 50.0, material="water")
    w.add_fluid_rect(100.0, 50.0, 200.0, 100.0, material="other")
    fastest = 0.0
    for _ in range(240):
        w.step()
        fastest = max(fastest, float(np.linalg.norm(w.fluid.velocities, axis=1).max()))
    y = w.fluid.positions[:, 1]
    mine = w.fluid.materials == w.material_id("other")
    c.extra["other_median"] = round(float(np.median(y[mine])), 1)
    c.extra["water_median"] = round(float(np.median(y[~mine])), 1)
    c.extra["nan"] = float(not np.isfinite(w.fluid.positions).all())
    in_order = (c.extra["other_median"] > c.extra["water_median"]) == (c.ratio < 1.0)
    c.value = fastest
    c.ok = in_order and fastest < 2000.0 and not c.extra["nan"]
    c.bound = "in order, fastest < 2000"


def _pour(c: Case) -> None:
    import warnings

    import numpy as np

    from fluidworld import World

    w = World(c.width, c.depth, solver=c.solver)
    tap = w.add_emitter((0.5 * c.width, c.depth - 10.0), (0.0, -1.0), 100.0, rate=400.0)
    fastest = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # "the fluid is full", once
        for i in range(600):
            w.step()
            if i >= 480:
                fastest = max(fastest, float(np.linalg.norm(w.fluid.velocities, axis=1).max()))
    room = w.domain_capacity()
    c.extra["count"] = float(w.fluid.count)
    c.extra["capacity"] = round(room, 1)
    c.extra["dropped"] = float(tap.dropped)
    c.value = fastest
    c.ok = w.fluid.count <= room + 1.0 and fastest < 200.0 and w.check().ok
    c.bound = "count <= capacity, fastest (8-10 s) < 200"


RUNNERS = {"float": _float_or_sink, "sink": _float_or_sink, "rest": _rest, "calm": _calm,
           "walls": _walls, "vary": _vary, "contrast": _contrast, "pour": _pour}
CONTRASTS = (0.01, 0.02, 0.05, 0.1, 5.0, 10.0, 20.0, 50.0, 100.0)
VARY_STEPS = 960
VARIANTS = ("seed 1", "seed 2", "substeps 1", "substeps 3", "g 500", "g 1500", "tilt", "wall",
            "pair", "tall")
WALLS = ("ramp 30 1", "ramp 60 1", "ramp 45 2", "ramp 30 0", "ramp 60 0", "ngon 5 1",
         "ngon 6 0", "ngon 3 2", "floor 250 1", "floor 150 0")


def run_case(c: Case) -> Case:
    """Run one case (in a worker process) and fill in what it measured."""
    t0 = time.perf_counter()
    try:
        RUNNERS[c.kind](c)
    except Exception as exc:  # a crash is a result too: report it, do not stop the sweep
        c.bound = f"raised {type(exc).__name__}: {exc}"
        c.ok = False
    c.seconds = time.perf_counter() - t0
    return c


def _shapes(quick: bool) -> list[str]:
    boxes = [f"box {w:g}x{h:g}" for w, h in BOXES]
    balls = [f"ball {r:g}" for r in BALLS]
    return boxes[:2] + balls[:2] if quick else boxes + balls


def cases(solvers: tuple[str, ...], only: tuple[str, ...], quick: bool) -> list[Case]:
    """The sweep: every kind of case in ``only`` for every solver in ``solvers``."""
    out: list[Case] = []
    depths = (100.0,) if quick else (70.0, 150.0)
    for s in solvers:
        fluids = FLUIDS if s == "srd" else ("water",)
        for m in fluids:
            for shape in _shapes(quick):
                for d in depths:
                    if "float" in only:
                        out += [Case("float", s, m, shape, r, d) for r in (0.4, 0.6, 0.9)]
                    if "sink" in only:
                        out.append(Case("sink", s, m, shape, 1.3, d))
        if "rest" in only:
            for width, depth in ((200.0, 60.0), (320.0, 100.0), (500.0, 200.0), (800.0, 80.0),
                                 (314.0, 100.0), (1024.0, 120.0)):
                out.append(Case("rest", s, depth=depth, width=width))
        if "walls" in only:
            out += [Case("walls", s, shape=sh) for sh in WALLS]
        if "calm" in only and s == "srd":
            for shape in _shapes(quick):
                # a square log of 0.5 is not calm flat: it turns corner down (45 degrees; see
                # fluidworld.fidelity.stability.square_log_angle)
                out += [Case("calm", s, "water", shape, r) for r in (0.5, 0.8)
                        if not (shape == "box 40x40" and r == 0.5)]
        if "pour" in only:  # an emitter left running in a closed box: 4,000 particles offered
            out += [Case("pour", s, depth=150.0, width=200.0),
                    Case("pour", s, depth=80.0, width=400.0)]
        if "contrast" in only:
            out += [Case("contrast", s, "other", ratio=r, depth=50.0, width=300.0)
                    for r in (CONTRASTS[:1] + CONTRASTS[-1:] if quick else CONTRASTS)]
        if "vary" in only:
            for shape in ("box 72x24", "ball 20"):
                out += [Case("vary", s, "water", shape, r, variant=v) for v in VARIANTS
                        for r in (0.4, 0.8) if v != "tilt" or shape.startswith("box")]
    # the slow solvers first, so the pool's last minutes are not one long case
    return sorted(out, key=lambda c: (c.solver == "srd", c.kind != "calm"))


def _warm(solvers: tuple[str, ...]) -> None:
    """Compile (or load) each solver's kernels once before the workers start."""
    from fluidworld import World

    for s in solvers:
        w = World(120.0, 120.0, solver=s)
        w.add_fluid_rect(0.0, 0.0, 120.0, 40.0)
        w.add_box((60.0, 50.0), (20.0, 10.0), density=0.5)
        w.add_ball((30.0, 50.0), 6.0, density=0.5)
        for _ in range(3):
            w.step()


def _row(c: Case) -> str:
    extra = " ".join(f"{k} {v:g}" for k, v in c.extra.items())
    shape = f"{c.shape}, {c.variant}" if c.variant else c.shape
    return (f"{c.kind:5s} {c.solver:10s} {c.material:5s} {shape:12s} {c.ratio:4.2g} "
            f"{c.depth:5.0f} {c.width:5.0f}  {c.value:8.3f}  {'ok  ' if c.ok else 'MISS'} "
            f"{c.bound}  {extra}  ({c.seconds:.0f} s)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0))
                    if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
    ap.add_argument("--only", default="float,sink,rest,calm,walls,vary,contrast,pour")
    ap.add_argument("--solvers", default="srd,ddr,constraint")
    ap.add_argument("--quick", action="store_true", help="fewer shapes, one depth")
    ap.add_argument("--limit", type=int, default=0, help="run only the first N cases")
    ap.add_argument("--json", default="", help="also write the cases to this file")
    a = ap.parse_args()
    if a.jobs < 1:
        ap.error(f"--jobs must be >= 1, got {a.jobs}")
    os.environ["NUMBA_NUM_THREADS"] = "1"  # one thread a worker; set before numba loads
    solvers = tuple(a.solvers.split(","))
    todo = cases(solvers, tuple(a.only.split(",")), a.quick)
    if a.limit > 0:
        todo = todo[:a.limit]
    print(f"{len(todo)} cases in {a.jobs} processes", flush=True)
    t0 = time.perf_counter()
    _warm(solvers)
    print(f"kernels ready in {time.perf_counter() - t0:.0f} s", flush=True)
    done: list[Case] = []
    if a.jobs == 1:  # in this process: no worker to start
        for c in todo:
            done.append(run_case(c))
            print(f"[{len(done)}/{len(todo)}] {_row(done[-1])}", flush=True)
    else:
        # spawned, not forked: the warm-up has started numba's thread pool in this process
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(a.jobs, mp_context=ctx) as pool:
            futures = [pool.submit(run_case, c) for c in todo]
            for f in as_completed(futures):
                done.append(f.result())
                print(f"[{len(done)}/{len(todo)}] {_row(done[-1])}", flush=True)
    missed = [c for c in done if not c.ok]
    print(f"\n{len(done) - len(missed)} of {len(done)} hold; misses:")
    for c in sorted(missed, key=lambda c: (c.kind, c.solver, c.material, c.shape)):
        print("  " + _row(c))
    print(f"wall {time.perf_counter() - t0:.0f} s")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump([asdict(c) for c in done], fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
