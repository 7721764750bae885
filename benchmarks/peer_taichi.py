"""The Taichi peer of ``benchmarks/peers.py``: position-based fluids (Macklin & Mueller 2013)
as Taichi's ``pbf2d`` example runs them, on the CPU backend.

Written here from the method (not copied): per substep, predict positions from velocities and
gravity, bin into a grid of cells one kernel radius wide, collect each particle's neighbours
(capped), then a fixed number of Jacobi iterations of the density constraint (poly6 density,
spiky gradients, a relaxation epsilon, the tensile-instability term ``s_corr``), clamping to
the box, and velocities from the positions. Single precision, as the example.

Same scene as the other peers: the dam-break block at ``r_L`` spacing, the same box, 1/60 s
frames of two substeps, gravity 900. The rest density is the lattice's own (an interior
particle's poly6 sum), so the block starts at rest density. ``taichi`` is optional: install the
``peers`` extra (``pip install -e ".[peers]"``); without it :func:`available` is False.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable

import numpy as np

#: Jacobi iterations of the density constraint per substep (Taichi's example: 5).
ITERATIONS = 5
#: Kernel radius in particle spacings (~14 neighbours at rest).
SUPPORT = 2.0
MAX_NEIGHBOURS = 48
#: The relaxation epsilon as a fraction of the rest lattice's sum of squared gradients (the
#: example's is ~30x; at 0.1 this dam break blows up within 400 frames, at 1.0 it settles).
EPS_FRACTION = 1.0
MAX_PER_CELL = 48


def available() -> bool:
    """Whether ``taichi`` can be imported."""
    return importlib.util.find_spec("taichi") is not None


def _rest_sums(spacing: float, hk: float) -> tuple[float, float]:
    """An interior lattice particle's poly6 density and its sum of squared constraint
    gradients (per unit rest density squared), for the rest density and epsilon."""
    dy = spacing * math.sqrt(3.0) / 2.0
    rho, grad = 0.0, 0.0
    gsum = np.zeros(2)
    k = int(hk / spacing) + 2
    for j in range(-k, k + 1):
        for i in range(-k, k + 1):
            x = (i + (0.5 if j % 2 else 0.0)) * spacing
            y = j * dy
            r = math.hypot(x, y)
            if r >= hk:
                continue
            rho += 4.0 / (math.pi * hk ** 8) * (hk * hk - r * r) ** 3
            if r > 0.0:
                g = -30.0 / (math.pi * hk ** 5) * (hk - r) ** 2 / r
                grad += g * g * r * r
                gsum += (g * x, g * y)
    return rho, grad + float(gsum @ gsum)


def make_stepper(points: np.ndarray, box: float, spacing: float, gravity: tuple[float, float],
                 h: float, substeps: int) -> tuple[Callable[[], None], Callable[[], np.ndarray]]:
    """Set Taichi up (CPU, default threads) for ``points`` in a ``box`` x ``box`` domain;
    return ``frame()`` (``substeps`` substeps of ``h``) and ``positions()``."""
    import taichi as ti

    ti.init(arch=ti.cpu, default_fp=ti.f32, log_level=ti.WARN)
    n = len(points)
    hk = SUPPORT * spacing
    rho0, grad0 = _rest_sums(spacing, hk)
    eps = EPS_FRACTION * grad0 / (rho0 * rho0)
    cells = max(1, math.ceil(box / hk))
    poly6_c = 4.0 / (math.pi * hk ** 8)
    spiky_c = -30.0 / (math.pi * hk ** 5)
    w_dq = poly6_c * (hk * hk - (0.3 * hk) ** 2) ** 3
    lo, hi = 1e-3 * spacing, box - 1e-3 * spacing
    jitter = 1e-2 * spacing

    pos = ti.Vector.field(2, ti.f32, n)
    old = ti.Vector.field(2, ti.f32, n)
    vel = ti.Vector.field(2, ti.f32, n)
    lam = ti.field(ti.f32, n)
    dpos = ti.Vector.field(2, ti.f32, n)
    cell_n = ti.field(ti.i32, (cells, cells))
    cell_p = ti.field(ti.i32, (cells, cells, MAX_PER_CELL))
    nb_n = ti.field(ti.i32, n)
    nb = ti.field(ti.i32, (n, MAX_NEIGHBOURS))
    pos.from_numpy(points.astype(np.float32))
    gx, gy = gravity

    @ti.func
    def clamp(p):  # type: ignore[no-untyped-def]
        # as the example: a particle put back on a wall gets a tiny random offset, so that a
        # pile on the wall does not sit on one line
        q = p
        for d in ti.static(range(2)):
            if q[d] <= lo:
                q[d] = lo + jitter * ti.random()
            elif q[d] >= hi:
                q[d] = hi - jitter * ti.random()
        return q

    @ti.func
    def cell_of(p):  # type: ignore[no-untyped-def]
        return ti.Vector([ti.min(ti.max(int(p[0] / hk), 0), cells - 1),
                          ti.min(ti.max(int(p[1] / hk), 0), cells - 1)])

    @ti.func
    def poly6(r2):  # type: ignore[no-untyped-def]
        w = 0.0
        if r2 < hk * hk:
            w = poly6_c * (hk * hk - r2) ** 3
        return w

    @ti.func
    def spiky(d):  # type: ignore[no-untyped-def]
        g = ti.Vector([0.0, 0.0])
        r = d.norm()
        if 0.0 < r < hk:
            g = spiky_c * (hk - r) ** 2 / r * d
        return g

    @ti.kernel
    def predict():  # type: ignore[no-untyped-def]
        for i in pos:
            old[i] = pos[i]
            vel[i] += ti.Vector([gx, gy]) * h
            pos[i] = clamp(pos[i] + vel[i] * h)
        for c in ti.grouped(cell_n):
            cell_n[c] = 0
        for i in pos:
            c = cell_of(pos[i])
            k = ti.atomic_add(cell_n[c], 1)
            if k < MAX_PER_CELL:
                cell_p[c[0], c[1], k] = i
        for i in pos:
            c = cell_of(pos[i])
            k = 0
            for off in ti.static(ti.grouped(ti.ndrange((-1, 2), (-1, 2)))):
                q = c + off
                if 0 <= q[0] < cells and 0 <= q[1] < cells:
                    for m in range(ti.min(cell_n[q], MAX_PER_CELL)):
                        j = cell_p[q[0], q[1], m]
                        if j != i and k < MAX_NEIGHBOURS and (pos[i] - pos[j]).norm_sqr() < hk * hk:
                            nb[i, k] = j
                            k += 1
            nb_n[i] = k

    @ti.kernel
    def relax():  # type: ignore[no-untyped-def]
        for i in pos:
            rho = poly6(0.0)
            g_i = ti.Vector([0.0, 0.0])
            s = 0.0
            for k in range(nb_n[i]):
                d = pos[i] - pos[nb[i, k]]
                rho += poly6(d.norm_sqr())
                g = spiky(d) / rho0
                g_i += g
                s += g.norm_sqr()
            lam[i] = -(rho / rho0 - 1.0) / (s + g_i.norm_sqr() + eps)
        for i in pos:
            dp = ti.Vector([0.0, 0.0])
            for k in range(nb_n[i]):
                j = nb[i, k]
                d = pos[i] - pos[j]
                s_corr = -0.001 * (poly6(d.norm_sqr()) / w_dq) ** 4
                dp += (lam[i] + lam[j] + s_corr) * spiky(d)
            dpos[i] = dp / rho0
        for i in pos:
            pos[i] = clamp(pos[i] + dpos[i])

    @ti.kernel
    def finish():  # type: ignore[no-untyped-def]
        for i in pos:
            vel[i] = (pos[i] - old[i]) / h

    def frame() -> None:
        for _ in range(substeps):
            predict()
            for _ in range(ITERATIONS):
                relax()
            finish()
        ti.sync()

    return frame, lambda: pos.to_numpy()
