"""Stage ``advect``: paper Eq. 4 (``r += v h``) followed by containment in the domain box.

The paper's wall particles alone leak: in a dam break particles move ~1.5 r_L in a step. So after
advection every particle outside ``[0, width] x [0, height]`` is put back inside (Sec. 3.3) --
mirrored with its normal velocity scaled by ``-restitution`` ("bounce"), or clamped with its
velocity scaled by ``1 - adhesion`` ("adhere") -- per material. Non-finite velocities (which only
bad user input can create) are zeroed so that one bad particle cannot spread NaN, and no particle
goes faster than ``max_speed`` (:data:`MAX_SPEED_CELLS` pressure cells a substep, from the
solvers): a safety net, as LiquidFun limits its particles to a critical speed. The demos' fastest
particles move at ~1 cell a substep; a faucet left running into a small sealed box packed the
fluid until it burst at 10^19 units/s, and flung a box in it until pymunk overflowed.

The range kernel groups the containment box ``box = (lo_x, hi_x, lo_y, hi_y)`` and the materials'
wall response ``walls = (bounce_table, rest_table, keep_table)``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

__all__ = [
    "MAX_SPEED_CELLS",
    "advect_and_contain",
    "advect_and_contain_parallel",
    "add_accelerations",
    "add_accelerations_parallel",
]


#: The fastest a particle may move, in pressure cells (``a0``) per substep.
MAX_SPEED_CELLS = 4.0


@njit(cache=True)
def _contain_axis(x, v, lo, hi, bounce, rest):
    if x < lo:
        if bounce:
            x = min(lo + (lo - x) * rest, hi)
            if v < 0.0:
                v = -v * rest
        else:
            x = lo
            v = max(v, 0.0)
    elif x > hi:
        if bounce:
            x = max(hi - (x - hi) * rest, lo)
            if v > 0.0:
                v = -v * rest
        else:
            x = hi
            v = min(v, 0.0)
    return x, v


@njit(cache=True)
def _advect_range(i0, i1, pos, vel, mat, h, box, walls, max_speed):
    lo_x, hi_x, lo_y, hi_y = box
    bounce_table, rest_table, keep_table = walls
    put_back = 0
    cap2 = max_speed * max_speed
    for i in range(np.uint64(i0), np.uint64(i1)):  # unsigned: no wrap-around per access
        vx = vel[i, 0]
        vy = vel[i, 1]
        if not (math.isfinite(vx) and math.isfinite(vy)):
            vx = 0.0
            vy = 0.0
        s2 = vx * vx + vy * vy
        if s2 > cap2:
            f = max_speed / math.sqrt(s2)
            vx *= f
            vy *= f
        x = pos[i, 0] + vx * h
        y = pos[i, 1] + vy * h
        if x < lo_x or x > hi_x or y < lo_y or y > hi_y:
            k = mat[i]
            b = bounce_table[k]
            x, vx = _contain_axis(x, vx, lo_x, hi_x, b, rest_table[k])
            y, vy = _contain_axis(y, vy, lo_y, hi_y, b, rest_table[k])
            if not b:  # adhere: the outward normal velocity is gone, the rest is slowed
                vx *= keep_table[k]
                vy *= keep_table[k]
            put_back += 1
        pos[i, 0] = x
        pos[i, 1] = y
        vel[i, 0] = vx
        vel[i, 1] = vy
    return put_back


@njit(cache=True)
def advect_and_contain(pos, vel, mat, n, h, width, height, margin, bounce_table, rest_table,
                       keep_table, max_speed=math.inf):
    """Move particles by ``v h`` (Eq. 4), their speed first cut to ``max_speed``, and keep them
    in ``[margin, size - margin]``.

    Returns the number of particles that had to be put back.
    """
    return _advect_range(0, n, pos, vel, mat, h, (margin, width - margin, margin, height - margin),
                         (bounce_table, rest_table, keep_table), max_speed)


@njit(cache=True, parallel=True)
def advect_and_contain_parallel(pos, vel, mat, n, h, width, height, margin, bounce_table,
                                rest_table, keep_table, max_speed=math.inf):
    """:func:`advect_and_contain` over particle chunks in parallel; identical results."""
    chunk = 8192
    box = (margin, width - margin, margin, height - margin)
    walls = (bounce_table, rest_table, keep_table)
    put_back = 0
    for t in prange((n + chunk - 1) // chunk):
        put_back += _advect_range(t * chunk, min(n, (t + 1) * chunk), pos, vel, mat, h, box,
                                  walls, max_speed)
    return put_back


@njit(cache=True)
def _accelerate_range(i0, i1, vel, mat, gx, gy, mat_acc, use_mat, h):
    if use_mat:
        for i in range(np.uint64(i0), np.uint64(i1)):
            k = mat[i]
            vel[i, 0] += (gx + mat_acc[k, 0]) * h
            vel[i, 1] += (gy + mat_acc[k, 1]) * h
    else:
        dx = gx * h
        dy = gy * h
        for i in range(np.uint64(i0), np.uint64(i1)):
            vel[i, 0] += dx
            vel[i, 1] += dy


@njit(cache=True)
def add_accelerations(vel, mat, n, gx, gy, mat_acc, use_mat, h):
    """Stage ``external_forces``: ``v += (g + a[material]) h`` (``a`` only if ``use_mat``)."""
    _accelerate_range(0, n, vel, mat, gx, gy, mat_acc, use_mat, h)


@njit(cache=True, parallel=True)
def add_accelerations_parallel(vel, mat, n, gx, gy, mat_acc, use_mat, h):
    """:func:`add_accelerations` over particle chunks in parallel; identical results."""
    chunk = 8192
    for t in prange((n + chunk - 1) // chunk):
        _accelerate_range(t * chunk, min(n, (t + 1) * chunk), vel, mat, gx, gy, mat_acc, use_mat,
                          h)
