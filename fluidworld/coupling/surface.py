"""Where the water stands beside each body: the highest fluid particle of each column
(:func:`column_tops`), the level left and right of each body's samples (:func:`sample_bounds`,
:func:`water_levels`), the particle range of the bodies' rows (:func:`body_rows_range`) and the
submerged area of each body's samples below it (:func:`submerged_areas`). Buoyancy, drag and
the pressure push read these levels.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .buoyancy import _level_at

__all__ = ["submerged_areas", "sample_bounds", "column_tops", "column_tops_parallel",
           "cap_columns", "cap_side_columns", "cap_wall_columns", "water_levels",
           "body_rows_range", "DRY_LEVEL"]

#: The water level of a body with no water beside it: far below anything.
DRY_LEVEL = -1e30


@njit(cache=True)
def submerged_areas(pos, area, owner, n, levels, spacing, out_submerged):
    """Each body's submerged area (``out_submerged``, n_bodies) from its interior samples.

    A sample at height y stands for the strip ``[y - s/2, y + s/2]``; the fraction of the strip
    below the level (interpolated between the left and right levels) weights it, which makes the
    submerged area of an axis-aligned box exact. (The buoyancy itself is the pressure integral
    over the surface, :func:`~.buoyancy.surface_buoyancy`.)
    """
    submerged_range(0, n, pos, area, owner, levels, spacing, out_submerged)


@njit(cache=True)
def submerged_range(k0, k1, pos, area, owner, levels, spacing, out_submerged):
    """:func:`submerged_areas` over the samples ``k0..k1``."""
    for k in range(k0, k1):
        b = np.uint64(owner[k])  # unsigned: no negative-index wrap-around
        lev = _level_at(levels, b, pos[k, 0])
        if math.isnan(lev):
            continue
        w = (lev - (pos[k, 1] - 0.5 * spacing)) / spacing
        if w <= 0.0:
            continue
        out_submerged[b] += area[k] * min(w, 1.0)


@njit(cache=True)
def sample_bounds(pos, owner, n_bodies, half, out_box):
    """World bounding box of each body's samples, grown by ``half``; empty bodies get NaN."""
    for b in range(n_bodies):
        out_box[b, 0] = 1e300
        out_box[b, 1] = 1e300
        out_box[b, 2] = -1e300
        out_box[b, 3] = -1e300
    bounds_range(0, pos.shape[0], pos, owner, half, out_box)
    for b in range(n_bodies):
        if out_box[b, 0] > out_box[b, 2]:
            for c in range(4):
                out_box[b, c] = np.nan


@njit(cache=True)
def bounds_range(k0, k1, pos, owner, half, out_box):
    """Grow the boxes ``out_box`` of their bodies by the samples ``k0..k1``."""
    for k in range(k0, k1):
        b = np.uint64(owner[k])  # unsigned: no negative-index wrap-around
        out_box[b, 0] = min(out_box[b, 0], pos[k, 0] - half)
        out_box[b, 1] = min(out_box[b, 1], pos[k, 1] - half)
        out_box[b, 2] = max(out_box[b, 2], pos[k, 0] + half)
        out_box[b, 3] = max(out_box[b, 3], pos[k, 1] + half)


@njit(cache=True)
def _tops_range(pos, vel, i0, i1, inv, inv_c, cells, gamma, out_top):
    """:func:`column_tops` for particles ``i0..i1`` into ``out_top`` (``cells``: the pressure
    stage's ``(cell_count, solid_frac)``); returns their largest speed component."""
    cell_count, solid_frac = cells
    ny, nx = cell_count.shape
    ncol = out_top.shape[0]
    vmax = 0.0
    # top rows first (the particles come sorted by row from the bin stage, give or take a
    # substep's motion): a column's top is then found early and the particles below it leave at
    # the first test. The result (a maximum per column) does not depend on the order.
    for p in range(i1 - 1, i0 - 1, -1):
        vmax = max(vmax, abs(vel[p, 0]), abs(vel[p, 1]))
        x = pos[p, 0]
        y = pos[p, 1]
        c = min(max(int(x * inv_c), 0), ncol - 1)
        if y <= out_top[c]:
            continue
        i = min(max(int(x * inv), 0), nx - 1)
        j = min(max(int(y * inv), 0), ny - 1) - 1
        if j >= 0 and cell_count[j, i] - solid_frac[j, i] * gamma < 0.25 * gamma:
            continue
        out_top[c] = y
    return vmax


@njit(cache=True)
def column_tops(pos, vel, n, a0, cell_count, solid_frac, gamma, col_w, out_top):
    """Highest fluid particle in each column of width ``col_w`` that has fluid below it (the
    pressure cell one row down holds at least ``gamma / 4`` fluid particles by the pressure
    stage's count, solid cover taken out), so that a droplet in the air is not the surface.
    Empty columns get -inf. Returns the largest particle speed component (for broad phases)."""
    out_top[:] = -np.inf
    return _tops_range(pos, vel, 0, n, 1.0 / a0, 1.0 / col_w, (cell_count, solid_frac), gamma,
                       out_top)


@njit(cache=True, parallel=True)
def column_tops_parallel(pos, vel, n, a0, cell_count, solid_frac, gamma, col_w, out_top):
    """:func:`column_tops` over chunks of particles in parallel, the chunks' tops merged: the
    same result (maxima)."""
    chunk = 16384
    nchunk = max((n + chunk - 1) // chunk, 1)
    ncol = out_top.shape[0]
    tops = np.full((nchunk, ncol), -np.inf)
    vm = np.zeros(nchunk)
    for t in prange(nchunk):
        vm[t] = _tops_range(pos, vel, t * chunk, min(n, (t + 1) * chunk), 1.0 / a0,
                            1.0 / col_w, (cell_count, solid_frac), gamma, tops[t])
    for c in range(ncol):
        top = -np.inf
        for t in range(nchunk):
            top = max(top, tops[t, c])
        out_top[c] = top
    return vm.max()


@njit(cache=True)
def cap_columns(out_pos, m, tops, col_w, reach):
    """Columns whose top lies under a solid are no free surface: water under a floating body
    or against a wall's underside. A column with an outline sample (of any coupled shape)
    above its top by at most ``reach`` gets the top NaN, so :func:`water_levels` reads no
    level there but looks on past it.
    (The water right under a neighbour's bottom stood for the level beside a body: two
    touching 60 x 16 boxes of 0.4 measured 0.24 submerged for 0.39.)"""
    ncol = tops.shape[0]
    inv = 1.0 / col_w
    for k in range(m):
        x = out_pos[k, 0]
        if not x >= 0.0:
            continue
        c = int(x * inv)
        if c < ncol and tops[c] < out_pos[k, 1] <= tops[c] + reach:
            tops[c] = np.nan  # water, but no free surface: passable, not a level


@njit(cache=True)
def cap_side_columns(tops, col_w, width):
    """Columns not wholly at least a column's width inside the domain's side walls are no
    level either (NaN, passable, as :func:`cap_columns` leaves them; dry ones stay dry). The
    fluid keeps off a wall and stacks against it in columns of its own, so the top of the
    column by a wall is not the surface: in a pool 320 wide, filled 100 deep and resting, the
    wall columns' tops read 96.1 and 92.8 where the columns between read 99.6. A 72 x 24 box
    of 0.4 floating 12 units from the right wall had that column for its whole level on the
    wall's side and floated at 0.342 (0.405 without it; read on its open side)."""
    for c in range(tops.shape[0]):
        if (c * col_w < col_w or (c + 1) * col_w > width - col_w) and math.isfinite(tops[c]):
            tops[c] = np.nan


@njit(cache=True)
def cap_wall_columns(out_pos, owner, dynamic, m, tops, col_w, reach):
    """Columns beside a wall are no level either (NaN, as :func:`cap_columns`): a column one
    either side of an outline sample of a shape that is not dynamic (a wall, a static polygon,
    a kinematic platform) lying above the column's top by at most ``reach``. The fluid stacks
    against a wall in columns of its own, whose tops are not the surface (see
    :func:`cap_side_columns`); a dynamic body's own columns are its level's and stay."""
    ncol = tops.shape[0]
    inv = 1.0 / col_w
    for k in range(m):
        if dynamic[owner[k]]:
            continue
        x = out_pos[k, 0]
        y = out_pos[k, 1]
        if not x >= 0.0:
            continue
        c = int(x * inv)
        for cc in (c - 1, c + 1):
            if 0 <= cc < ncol and tops[cc] < y <= tops[cc] + reach:
                tops[cc] = np.nan


@njit(cache=True)
def water_levels(body_box, tops, col_w, solid_frac, a0, half_layer, near, far, min_clean,
                 out_level):
    """Free-surface level left and right of each body from :func:`column_tops`.

    The level on a side is the mean of the column tops plus half a particle layer, over the
    columns between ``near`` and ``far`` from the body's bounding box whose top cell holds less
    than ``min_clean`` solid cover, walked outward from the body up to the first column
    without water (top -inf; a NaN top, water under a solid, is passed): water beyond a dry
    gap, a wall or a shore is not the body's (a dry crate 150 units from a walled-off tank
    took the tank's level and was thrown into the air). Where neither side has such a column
    (bodies packed side by side), the band widens (x2, up to 4 times) before giving up with
    NaN (no level: the body's cover counts whole); a body with no water at all beside it (dry
    columns next to it on both sides) gets :data:`DRY_LEVEL` on both (nothing of it
    submerged: with NaN a crate falling through a dry room fell at 2 g, its cover's gravity
    kick met by no pressure).
    ``out_level[b] = (x_left, level_left, x_right, level_right)``. A body wholly outside the
    columns (beside the domain) or below the domain's floor has no water: NaN.
    """
    ny, nx = solid_frac.shape
    ncol = tops.shape[0]
    for b in range(body_box.shape[0]):
        x0 = body_box[b, 0]
        x1 = body_box[b, 2]
        for c in range(4):
            out_level[b, c] = np.nan
        if math.isnan(x0) or math.isnan(x1):
            continue
        if x1 <= 0.0 or x0 >= ncol * col_w or body_box[b, 3] <= 0.0:
            continue
        f = far
        wet = False
        found = False
        for _ in range(5):
            counts = (0, 0)
            for side in range(2):
                if side == 0:
                    lo = x0 - f
                    hi = x0 - near
                else:
                    lo = x1 + near
                    hi = x1 + f
                c0 = max(int(math.ceil(lo / col_w)), 0)
                c1 = min(int(math.floor(hi / col_w)), ncol)
                s = 0.0
                xs = 0.0
                k = 0
                for q in range(c1 - c0):  # outward from the body to the first dry column
                    c = c1 - 1 - q if side == 0 else c0 + q
                    if tops[c] == -np.inf:
                        if side == 0:
                            c0 = c + 1
                        else:
                            c1 = c
                        break
                    wet = True
                for c in range(c0, c1):
                    t = tops[c]
                    if not math.isfinite(t):
                        continue
                    i = min(max(int((c + 0.5) * col_w / a0), 0), nx - 1)
                    j = min(max(int(t / a0), 0), ny - 1)
                    if solid_frac[j, i] >= min_clean:
                        continue
                    s += t
                    xs += (c + 0.5) * col_w
                    k += 1
                if k > 0:
                    out_level[b, 2 * side] = xs / k
                    out_level[b, 2 * side + 1] = s / k + half_layer
                    found = True
                counts = (k, counts[1]) if side == 0 else (counts[0], k)
            # one column in a gap beside the body (a wall or another body a column or two
            # away) is no level where the other side has more: the water climbs the body
            for side in range(2):
                if counts[side] == 1 and counts[1 - side] >= 2:
                    out_level[b, 2 * side] = np.nan
                    out_level[b, 2 * side + 1] = np.nan
            if found:
                break
            f *= 2.0
        if not wet:  # no water beside it at all: nothing of it is under water
            out_level[b, 0] = x0
            out_level[b, 1] = DRY_LEVEL
            out_level[b, 2] = x1
            out_level[b, 3] = DRY_LEVEL


@njit(cache=True)
def body_rows_range(body_box, levels, a0, nb_start, inv_nb, nb_nx, nb_ny):
    """The particles (an index range of the ``bin`` stage's order, by neighbour-grid row) in
    the rows from the lowest body's bottom to the highest body top or water level, a cell
    more each way: those whose densities the bodies' profiles use."""
    y0 = 1e300
    y1 = -1e300
    for b in range(body_box.shape[0]):
        if math.isnan(body_box[b, 1]):
            continue
        y0 = min(y0, body_box[b, 1])
        y1 = max(y1, body_box[b, 3])
        for c in (1, 3):
            if math.isfinite(levels[b, c]):
                y1 = max(y1, levels[b, c])
    if y0 > y1:
        return 0, 0
    r0 = min(max(int((y0 - a0) * inv_nb), 0), nb_ny - 1)
    r1 = min(max(int((y1 + a0) * inv_nb), 0), nb_ny - 1)
    return nb_start[r0 * nb_nx], nb_start[(r1 + 1) * nb_nx]
