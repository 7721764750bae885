"""Stage ``cell_pressure``'s momentum fix for free bodies of water (:func:`remove_free_drift`).

The non-empty cells are split into 4-connected regions by labelling each row's runs of non-empty
cells and joining the runs that overlap between neighbouring rows (union-find over runs, a few
hundred per pool instead of a breadth-first walk over every cell). Only the regions that touch no
domain wall -- droplets, jets, a pool in zero gravity, usually few and small -- are then walked
cell by cell, in the same order as a fill from their first cell, for their sums.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .pressure import EMPTY_COUNT, _all_rows, is_wall

__all__ = ["remove_free_drift", "free_regions"]


@njit(cache=True)
def remove_free_drift(cnt, wall, grad, grad2, both, solid_frac, gamma, order, seen, rows=None,
                      excess=None):
    """Make the projection momentum-conserving for bodies of water that touch no wall.

    The correction ``v -= grad`` conserves momentum only where cells are equally dense, so a free
    blob (a droplet, a jet, a pool floating in zero gravity) would slowly lose momentum to the
    pressure stage, which should be internal to it. Here the non-empty cells are split into
    connected regions (4-neighbour); in every region that touches no domain wall, the
    count-weighted mean of ``grad`` is subtracted, so the region's net pressure impulse is exactly
    zero. The weights are the fluid particles plus the bodies' cover (``solid_frac * gamma``),
    since the coupling pushes bodies with the same field -- except in cells next to air, where
    the coupling does not push bodies (its contract; see ``coupling.kernels.pressure_impulses``).
    ``excess`` (optional, ``(ny, nx)``): the bodies' cover past the cap of 1 that ``solid_frac``
    keeps (a rotated body's samples alias with the grid: up to 1.11 of a cell); the coupling
    pushes all of it, so it weighs too (without it a tilted box shot into a weightless blob
    took 7 % more push than the fluid gave, and 1.4 % of the momentum was lost).
    Regions against a wall are left alone: there the wall legitimately takes momentum (a pool's
    weight). Walls are the domain's border and the wall cells (``wall``,
    :mod:`.pressure_walls`: not part of any region; a region beside one touches a wall).
    With ``both``, ``grad2`` (the density correction) is treated the same way. ``order`` (int)
    and ``seen`` (bool) are scratch of ``ny * nx``. With ``rows``
    (:func:`.pressure.active_rows`) only those rows are scanned: every non-empty cell lies in one
    of them.
    """
    ny, nx = cnt.shape
    act = _all_rows(ny, rows)
    starts, nfree = free_regions(cnt, wall, act)
    if nfree == 0:
        return
    for j0 in act:
        for i0 in range(nx):
            seen[j0 * nx + i0] = False
    for r in range(nfree):
        start = starts[r]
        seen[start] = True
        order[0] = start
        tail, _ = _flood(order, seen, cnt, wall, nx, ny)
        # the region's sums, in the order the fill visited its cells
        if excess is None:
            _remove_mean(order, tail, cnt, grad, grad2, both, solid_frac, gamma, solid_frac,
                         0.0)
        else:
            _remove_mean(order, tail, cnt, grad, grad2, both, solid_frac, gamma, excess, gamma)


@njit(cache=True)
def free_regions(cnt, wall, act):
    """The first cell (``j * nx + i``, in row-major order over the rows ``act``) of every
    4-connected region of non-empty cells (not wall cells) that touches no domain edge and no
    wall cell, in that order; returns ``(cells, count)``."""
    ny, nx = cnt.shape
    cap = len(act) * ((nx + 1) // 2) + 1
    run_j = np.empty(cap, np.int64)
    run_a = np.empty(cap, np.int64)
    run_b = np.empty(cap, np.int64)
    parent = np.empty(cap, np.int64)
    touch = np.zeros(cap, np.bool_)
    nr = 0
    prev0 = 0  # the previous active row's runs: [prev0, prev1)
    prev1 = 0
    for j in act:
        row0 = nr
        i = 0
        while i < nx:
            if cnt[j, i] < EMPTY_COUNT or is_wall(wall, j, i):
                i += 1
                continue
            a = i
            while i < nx and cnt[j, i] >= EMPTY_COUNT and not is_wall(wall, j, i):
                i += 1
            run_j[nr] = j
            run_a[nr] = a
            run_b[nr] = i - 1
            parent[nr] = nr
            touch[nr] = (j == 0 or j == ny - 1 or a == 0 or i == nx
                         or _beside_wall(wall, j, a, i))
            nr += 1
        if prev1 > prev0 and run_j[prev0] == j - 1:
            _join_rows(prev0, prev1, row0, nr, run_a, run_b, parent)
        prev0 = row0
        prev1 = nr
    for r in range(nr):  # the edge flags onto the roots
        if touch[r]:
            touch[_root(parent, r)] = True
    starts = np.empty(max(nr, 1), np.int64)
    nfree = 0
    for r in range(nr):  # runs in row-major order: a region's first run comes first
        q = _root(parent, r)
        if not touch[q]:
            starts[nfree] = run_j[r] * nx + run_a[r]
            nfree += 1
            touch[q] = True  # taken
    return starts, nfree


@njit(cache=True)
def _beside_wall(wall, j, a, b):
    """Whether a wall cell lies beside the run ``[a, b)`` of row ``j``: at either end, or above
    or below one of its cells."""
    ny, nx = wall.shape
    if (a > 0 and is_wall(wall, j, a - 1)) or (b < nx and is_wall(wall, j, b)):
        return True
    for i in range(a, b):
        if (j > 0 and is_wall(wall, j - 1, i)) or (j + 1 < ny and is_wall(wall, j + 1, i)):
            return True
    return False


@njit(cache=True)
def _root(parent, r):
    """The root of run ``r``, with path halving."""
    while parent[r] != r:
        parent[r] = parent[parent[r]]
        r = parent[r]
    return r


@njit(cache=True)
def _join_rows(p0, p1, q0, q1, run_a, run_b, parent):
    """Join the runs ``[p0, p1)`` of one row with the overlapping runs ``[q0, q1)`` of the next
    (both sorted by column)."""
    p = p0
    q = q0
    while p < p1 and q < q1:
        if run_b[p] >= run_a[q] and run_b[q] >= run_a[p]:
            rp = _root(parent, p)
            rq = _root(parent, q)
            if rp != rq:
                if rp < rq:
                    parent[rq] = rp
                else:
                    parent[rp] = rq
        if run_b[p] < run_b[q]:
            p += 1
        else:
            q += 1


@njit(cache=True)
def _flood(order, seen, cnt, wall, nx, ny):
    """Breadth-first fill from ``order[0]`` over non-empty cells; returns the region's size (its
    cells are ``order[:size]``, in visiting order) and whether it touches the domain's edge."""
    head = 0
    tail = 1
    touches = False
    while head < tail:
        c = order[head]
        head += 1
        j = c // nx
        i = c - j * nx
        if i == 0 or j == 0 or i == nx - 1 or j == ny - 1:
            touches = True
        for d in range(4):
            jj = j + (1 if d == 0 else (-1 if d == 1 else 0))
            ii = i + (1 if d == 2 else (-1 if d == 3 else 0))
            if jj < 0 or jj >= ny or ii < 0 or ii >= nx:
                continue
            cc = jj * nx + ii
            if not seen[cc] and cnt[jj, ii] >= EMPTY_COUNT and not is_wall(wall, jj, ii):
                seen[cc] = True
                order[tail] = cc
                tail += 1
    return tail, touches


@njit(cache=True)
def _remove_mean(order, size, cnt, grad, grad2, both, solid_frac, gamma, excess, excess_w):
    """Subtract the count-weighted mean of ``grad`` (and ``grad2`` if ``both``) over the region
    ``order[:size]`` (see :func:`remove_free_drift` for the weights; ``excess`` counts
    ``excess_w`` each where the cover does)."""
    ny, nx = cnt.shape
    w = 0.0
    gx = 0.0
    gy = 0.0
    hx = 0.0
    hy = 0.0
    for q in range(size):
        c = order[q]
        j = c // nx
        i = c - j * nx
        k = cnt[j, i]
        if ((i > 0 and cnt[j, i - 1] < EMPTY_COUNT)
                or (i + 1 < nx and cnt[j, i + 1] < EMPTY_COUNT)
                or (j > 0 and cnt[j - 1, i] < EMPTY_COUNT)
                or (j + 1 < ny and cnt[j + 1, i] < EMPTY_COUNT)):
            k -= solid_frac[j, i] * gamma
        else:
            k += excess[j, i] * excess_w
        w += k
        gx += k * grad[j, i, 0]
        gy += k * grad[j, i, 1]
        if both:
            hx += k * grad2[j, i, 0]
            hy += k * grad2[j, i, 1]
    if w <= 0.0:
        return
    mx = gx / w
    my = gy / w
    m2x = hx / w
    m2y = hy / w
    for q in range(size):
        c = order[q]
        j = c // nx
        i = c - j * nx
        grad[j, i, 0] -= mx
        grad[j, i, 1] -= my
        if both:
            grad2[j, i, 0] -= m2x
            grad2[j, i, 1] -= m2y
