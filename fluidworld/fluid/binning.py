"""Stage ``bin``: counting sort of particles by neighbour-grid cell.

The neighbour grid has cells of size ``r_L`` (the 3x3 block around a particle holds every
neighbour within ``r_L``). Sorting the particle arrays themselves (not an index) makes every
later neighbour loop read memory in order; DESIGN.md measured 2-3.5x over the paper's a0 search.

:func:`sort_particles` takes the particles as ``fluid = (pos, vel, mat, n)`` (as the other stages
do) and its sorted copies as ``out = (pos_out, vel_out, mat_out)``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["sort_particles", "bin_points", "bin_points_over", "mark_near_cells", "near_points",
           "gather_cells"]


@njit(cache=True)
def _cell_index(x: float, y: float, inv_h: float, nx: int, ny: int) -> int:
    cx = int(x * inv_h)
    cy = int(y * inv_h)
    if cx < 0:
        cx = 0
    elif cx >= nx:
        cx = nx - 1
    if cy < 0:
        cy = 0
    elif cy >= ny:
        cy = ny - 1
    return cy * nx + cx


@njit(cache=True)
def sort_particles(fluid, inv_h, nx, ny, out, cell_start, cell_of, span, keep_pos):
    """Counting sort of the first ``n`` particles of ``fluid = (pos, vel, mat, n)`` by cell;
    writes the sorted copies to ``out = (pos_out, vel_out, mat_out)``.

    If ``keep_pos`` holds at least ``n`` rows, the sorted positions are written there too (the
    substep's start positions, kept for the coupling layer's containment); pass an empty
    array otherwise.

    ``cell_start`` (``nx*ny + 1``) receives the first sorted index of each cell; ``cell_of`` (n)
    is scratch. The sort is stable, so equal inputs give bit-identical outputs.

    Only the cells from the first to the last occupied one are counted and summed (a level is
    mostly air: at 100k particles the grid has ~450k cells, ~5x the particles). ``span``
    (int64[3]) carries ``(first, last, n)`` of the previous call on the same ``cell_start``; cells
    that were occupied then but lie outside the new span are reset, so the result is always the
    full prefix array. Pass ``(0, nx*ny - 1, -1)`` for a ``cell_start`` of unknown content.
    """
    pos, vel, mat, n = fluid
    pos_out, vel_out, mat_out = out
    ncell = nx * ny
    lo = ncell
    hi = -1
    for i in range(n):
        c = _cell_index(pos[i, 0], pos[i, 1], inv_h, nx, ny)
        cell_of[i] = c
        lo = min(lo, c)
        hi = max(hi, c)
    # cell_start entries to rewrite: those of this span and of the previous one (before the
    # span: 0, after it: n); every entry after the last occupied cell changes if n did
    a = min(lo, span[0])
    b = ncell - 1 if n != span[2] else max(hi, span[1])
    for c in range(lo, hi + 1):
        cell_start[c + 1] = 0
    for i in range(n):
        cell_start[np.uint64(cell_of[i]) + np.uint64(1)] += 1
    # exclusive prefix shifted by one cell: cell_start[c + 1] = first index of cell c; the scatter
    # then advances it to the first index of cell c + 1, which is its final value (no cursor
    # array, one pass over the grid fewer)
    run = 0
    for c in range(lo, hi + 1):
        k = cell_start[c + 1]
        cell_start[c + 1] = run
        run += k
    keep = keep_pos.shape[0] >= n
    for i in range(n):
        c = np.uint64(cell_of[i]) + np.uint64(1)
        d = cell_start[c]
        cell_start[c] = d + 1
        # unsigned indices: numba then skips the negative-index wrap-around on each of the
        # stores (the scatter ran ~25 % faster at 100k particles)
        d = np.uint64(d)
        pos_out[d, 0] = pos[i, 0]
        pos_out[d, 1] = pos[i, 1]
        vel_out[d, 0] = vel[i, 0]
        vel_out[d, 1] = vel[i, 1]
        mat_out[d] = mat[i]
        if keep:
            keep_pos[d, 0] = pos[i, 0]
            keep_pos[d, 1] = pos[i, 1]
    for c in range(a, min(lo, ncell) + 1):
        cell_start[c] = 0
    for c in range(hi + 2, b + 2):
        cell_start[c] = n
    span[0] = lo
    span[1] = hi
    span[2] = n


@njit(cache=True)
def bin_points(pos, m, inv_h, nx, ny, cell_start, order, span=None):
    """Bin ``m`` points (solid particles) without moving them: ``order`` lists point indices cell
    by cell, ``cell_start`` (``nx*ny + 1``) indexes into it.

    With ``span`` (int64[3], as :func:`sort_particles` keeps it for the same ``cell_start``:
    ``(first, last, m)`` of the previous call; ``(0, nx*ny - 1, -1)`` at first) only the cells
    from the first to the last occupied one are counted and summed, and those occupied last time
    outside them reset; without it the whole grid is rewritten."""
    ncell = nx * ny
    cells = np.empty(m, np.int64)
    lo = ncell
    hi = -1
    for i in range(m):
        c = _cell_index(pos[i, 0], pos[i, 1], inv_h, nx, ny)
        cells[i] = c
        lo = min(lo, c)
        hi = max(hi, c)
    if span is None:
        a, b, lo, hi = 0, ncell - 1, 0, ncell - 1
    else:
        a = min(lo, span[0])
        b = ncell - 1 if m != span[2] else max(hi, span[1])
        span[0] = lo
        span[1] = hi
        span[2] = m
    for c in range(lo, hi + 1):
        cell_start[c + 1] = 0
    for i in range(m):
        cell_start[cells[i] + 1] += 1
    # exclusive prefix shifted by one cell, then the scatter advances each entry to its final
    # value (as in sort_particles: no cursor array)
    run = 0
    for c in range(lo, hi + 1):
        k = cell_start[c + 1]
        cell_start[c + 1] = run
        run += k
    for i in range(m):
        c = cells[i]
        d = cell_start[c + 1]
        cell_start[c + 1] = d + 1
        order[d] = i
    for c in range(a, min(lo, ncell) + 1):
        cell_start[c] = 0
    for c in range(hi + 2, b + 2):
        cell_start[c] = m


@njit(cache=True)
def mark_near_cells(pos, m, inv_h, nx, ny, near, marked, n_marked, i0=0, base=None):
    """Flag (``near[c] = 1``) every cell whose 3x3 block holds one of the points ``i0..m``.

    ``marked`` lists the flagged cells (capacity ``9 m``); the first ``n_marked`` entries are the
    previous call's flags, which are cleared first (back to ``base[c]``, the flags of points
    that never move, if given; else to 0), so ``near`` never needs a full reset. Returns the new
    number of flagged cells (a cell that ``base`` flags is not listed: it stays flagged).
    """
    for q in range(n_marked):
        near[marked[q]] = 0 if base is None else base[marked[q]]
    k = 0
    last = -1
    for s in range(i0, m):
        c = _cell_index(pos[s, 0], pos[s, 1], inv_h, nx, ny)
        if c == last:  # outline points come in order: often several in a row in one cell
            continue
        last = c
        cy = c // nx
        cx = c - cy * nx
        for yy in range(max(cy - 1, 0), min(cy + 2, ny)):
            for xx in range(max(cx - 1, 0), min(cx + 2, nx)):
                cc = yy * nx + xx
                if near[cc] == 0:
                    near[cc] = 1
                    marked[k] = cc
                    k += 1
    return k


@njit(cache=True)
def bin_points_over(pos, nw, m, inv_h, nx, ny, walls, cell_start, order, span):
    """:func:`bin_points` of ``m`` points whose first ``nw`` never move (the domain's walls),
    binned once into ``walls = (w_start, w_order)`` (:func:`bin_points` of ``pos[:nw]``): the
    same ``cell_start`` and ``order`` (every cell lists its wall points, then its other points,
    by index), but only the cells from the first to the last one the moving points occupy, now
    or at the last call, are rewritten (the cells below keep their walls' entries, those above
    the walls' shifted by ``m - nw``).

    ``span`` (int64[3]): ``(first, last, m)`` of the moving points' cells at the last call;
    ``(0, nx * ny - 1, -1)`` at first (any ``m`` other than the last rewrites every cell).
    """
    w_start, w_order = walls
    ncell = nx * ny
    mb = m - nw
    cells = np.empty(mb, np.int64)
    lo = ncell
    hi = -1
    for k in range(mb):
        c = _cell_index(pos[nw + k, 0], pos[nw + k, 1], inv_h, nx, ny)
        cells[k] = c
        lo = min(lo, c)
        hi = max(hi, c)
    if span[2] != m:
        a, b = 0, ncell - 1
    else:
        a = min(lo, span[0])
        b = max(hi, span[1])
    span[0] = lo
    span[1] = hi
    span[2] = m
    cur = np.zeros(max(hi - lo + 1, 0), np.int64)  # counts, then each cell's next slot
    for k in range(mb):
        cur[cells[k] - lo] += 1
    before = 0  # moving points in the cells below c
    for c in range(a, min(b + 2, ncell + 1)):
        if lo <= c - 1 <= hi:
            before += cur[c - 1 - lo]
        cell_start[c] = w_start[c] + before
    for c in range(a, min(b + 1, ncell)):
        p = cell_start[c]
        for q in range(w_start[c], w_start[c + 1]):
            order[p] = w_order[q]
            p += 1
        if lo <= c <= hi:
            cur[c - lo] = p
    for k in range(mb):
        j = cells[k] - lo
        order[cur[j]] = nw + k
        cur[j] += 1


@njit(cache=True)
def near_points(points, pos, n, radius):
    """Which ``points`` lie closer than ``radius`` to one of the first ``n`` positions ``pos``
    (a fill's lattice against the fluid already there): the positions inside the points' box
    grown by ``radius`` binned in cells ``radius`` wide, each point's 3 x 3 cells searched.
    Returns a bool array over ``points``."""
    m = points.shape[0]
    out = np.zeros(m, np.bool_)
    if m == 0 or n == 0 or not radius > 0.0:
        return out
    x0 = points[:, 0].min() - radius
    y0 = points[:, 1].min() - radius
    inv = 1.0 / radius
    nx = int((points[:, 0].max() + radius - x0) * inv) + 1
    ny = int((points[:, 1].max() + radius - y0) * inv) + 1
    start = np.zeros(nx * ny + 1, np.int64)
    cell = np.full(n, -1, np.int64)
    for i in range(n):
        cx = int((pos[i, 0] - x0) * inv)
        cy = int((pos[i, 1] - y0) * inv)
        if 0 <= cx < nx and 0 <= cy < ny and pos[i, 0] >= x0 and pos[i, 1] >= y0:
            cell[i] = cy * nx + cx
            start[cell[i] + 1] += 1
    for c in range(nx * ny):
        start[c + 1] += start[c]
    fill = start[:-1].copy()
    order = np.empty(start[-1], np.int64)
    for i in range(n):
        if cell[i] >= 0:
            order[fill[cell[i]]] = i
            fill[cell[i]] += 1
    r2 = radius * radius
    for k in range(m):
        px = points[k, 0]
        py = points[k, 1]
        cx = int((px - x0) * inv)
        cy = int((py - y0) * inv)
        for yy in range(max(cy - 1, 0), min(cy + 2, ny)):
            for xx in range(max(cx - 1, 0), min(cx + 2, nx)):
                c = yy * nx + xx
                for t in range(start[c], start[c + 1]):
                    j = order[t]
                    dx = pos[j, 0] - px
                    dy = pos[j, 1] - py
                    if dx * dx + dy * dy < r2:
                        out[k] = True
                        break
                if out[k]:
                    break
            if out[k]:
                break
    return out


@njit(cache=True, inline="always")
def _clamped(x, m):
    """``int(x)`` clamped to ``[0, m - 1]``; 0 for NaN (numpy's cast and clip give the same)."""
    if not x >= 0.0:  # negative, or NaN
        return 0
    if x >= m - 1:
        return m - 1
    return int(x)


@njit(cache=True)
def _gather_scalar(pos, n, a0, field, out):
    ny, nx = field.shape
    for k in range(n):
        out[k] = field[_clamped(pos[k, 1] / a0, ny), _clamped(pos[k, 0] / a0, nx)]


@njit(cache=True)
def _gather_vector(pos, n, a0, field, out):
    ny, nx = field.shape[0], field.shape[1]
    for k in range(n):
        i = _clamped(pos[k, 0] / a0, nx)
        j = _clamped(pos[k, 1] / a0, ny)
        for c in range(field.shape[2]):
            out[k, c] = field[j, i, c]


def gather_cells(pos: np.ndarray, a0: float, field: np.ndarray) -> np.ndarray:
    """``field`` (``(ny, nx)`` or ``(ny, nx, m)``, cells of side ``a0``) at the cell of each of
    the points ``pos`` (clamped to the grid): what ``field[j, i]`` gives with ``i, j`` the
    points' cell indices, in one pass over the points (the renderers ask for two fields of
    every particle each frame; indexing with numpy arrays took ~2.3 ms at 50k)."""
    n = len(pos)
    if field.ndim == 2:
        out = np.empty(n, field.dtype)
        _gather_scalar(pos, n, float(a0), field, out)
    else:
        out = np.empty((n, field.shape[2]), field.dtype)
        _gather_vector(pos, n, float(a0), field, out)
    return out
