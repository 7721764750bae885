"""The parts of the pressure cells that walls cut (numba): which pieces of a cell lie apart.

A wall that runs through a cell's middle (a thin floor whose top is not on a cell edge, a tank's
side wall) splits the cell: water on one side, air on the other, and the cell counts as one.
Its count is then that of a cell part full of water, and the pressure solve's density
correction packs water into it (a tank on such a floor rested 2-7 % under its depth). Here the
coupler cuts each cell that walls touch (bit 0 of ``FluidSystem.wall_cover``) into ``SUB`` x
``SUB`` sub-points and labels them: -1 inside a wall, else the piece they belong to (pieces are
the sub-points joined by links that no wall stands across). The fluid's pressure stage then
counts the pieces that hold no particle as wall cover
(:func:`fluidworld.fluid.pressure_walls.cut_cover`).

Walls are the shapes of bodies that are not dynamic and do not move (as for the wall cells);
they rarely change, so :func:`wall_signature` tells the coupler when to label again.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from ..fluid.free_drift import _root
from .shapetests import _segment_meets

__all__ = ["SUB", "wall_signature", "label_cut_cells", "relabel"]

#: Sub-points per cell side (``SUB * SUB`` of them, one bit each in a uint16).
SUB = 4


@njit(cache=True, inline="always")
def _still_body(b, dynamic, state):
    """Whether body ``b`` is a wall's: not dynamic and not moving (state columns 4-6 zero)."""
    return not dynamic[b] and state[b, 4] == 0.0 and state[b, 5] == 0.0 and state[b, 6] == 0.0


@njit(cache=True, inline="always")
def _is_wall(q, shape_body, dynamic, state):
    return _still_body(shape_body[q], dynamic, state)


@njit(cache=True)
def _shape_cells(verts, v0, v1, r, a0, nx, ny, pad):
    """The range of pressure cells ``(i0, j0, i1, j1)`` (inclusive, clamped to the grid) that a
    shape's posed vertices ``verts[v0:v1]`` grown by ``r`` reach, widened by ``pad`` cells."""
    lo_x = lo_y = 1e300
    hi_x = hi_y = -1e300
    for v in range(v0, v1):
        lo_x = min(lo_x, verts[v, 0])
        lo_y = min(lo_y, verts[v, 1])
        hi_x = max(hi_x, verts[v, 0])
        hi_y = max(hi_y, verts[v, 1])
    inv = 1.0 / a0
    return (max(int(math.floor((lo_x - r) * inv)) - pad, 0),
            max(int(math.floor((lo_y - r) * inv)) - pad, 0),
            min(int(math.floor((hi_x + r) * inv)) + pad, nx - 1),
            min(int(math.floor((hi_y + r) * inv)) + pad, ny - 1))


@njit(cache=True)
def wall_signature(shapes, dynamic, state):
    """A checksum of the walls' posed geometry (vertices, radii, which shapes are walls): it
    changes when a wall is added, removed, moved or a moving body stops."""
    (kind, vstart, verts, radius, thick, shape_body, box, active, wall, vlocal, vowner,
     vvel) = shapes
    s = 0.0
    for q in range(kind.shape[0]):
        if not _is_wall(q, shape_body, dynamic, state):
            continue
        s += (q + 1.0) * (radius[q] + 7.0)
        for v in range(vstart[q], vstart[q + 1]):
            s += (v + 1.0) * (verts[v, 0] * 1.618 + verts[v, 1] * 2.718)
    return s


@njit(cache=True)
def _cut_by(q, shapes, i, j, a0, inside, blocked):
    """Add shape ``q``'s marks in cell ``(j, i)``: the sub-points inside it (``inside``'s bits)
    and the links it stands across (``blocked``'s bits: 12 along x, then 12 along y)."""
    kind, vstart, verts, radius = shapes[0], shapes[1], shapes[2], shapes[3]
    k = kind[q]
    v0 = vstart[q]
    v1 = vstart[q + 1]
    r = radius[q]
    step = a0 / SUB
    x0 = i * a0 + 0.5 * step
    y0 = j * a0 + 0.5 * step
    for b in range(SUB):
        for a in range(SUB):
            x = x0 + a * step
            y = y0 + b * step
            if _segment_meets(x, y, x, y, k, v0, v1, verts, r):
                inside[j, i] |= np.uint16(1 << (b * SUB + a))
            if a + 1 < SUB and _segment_meets(x, y, x + step, y, k, v0, v1, verts, r):
                blocked[j, i] |= np.uint32(1 << (b * (SUB - 1) + a))
            if b + 1 < SUB and _segment_meets(x, y, x, y + step, k, v0, v1, verts, r):
                blocked[j, i] |= np.uint32(1 << (SUB * (SUB - 1) + b * SUB + a))


@njit(cache=True)
def label_cut_cells(shapes, dynamic, state, a0, cover, inside, blocked, labels):
    """Label the sub-points of every cell with wall cover (``cover`` bit 0): ``labels[j, i, k]``
    (k = ``b * SUB + a``, ``a`` along x) is -1 inside a wall, else the lowest index of its
    piece. ``inside`` (uint16) and ``blocked`` (uint32) are scratch, shaped like ``cover``.
    Returns how many cells are cut into more than one piece."""
    kind, vstart, verts, radius, shape_body = (shapes[0], shapes[1], shapes[2], shapes[3],
                                               shapes[5])
    ny, nx = cover.shape
    inside[:, :] = 0
    blocked[:, :] = 0
    for q in range(kind.shape[0]):
        if not _is_wall(q, shape_body, dynamic, state):
            continue
        i0, j0, i1, j1 = _shape_cells(verts, vstart[q], vstart[q + 1], radius[q], a0, nx, ny, 0)
        for j in range(j0, j1 + 1):
            for i in range(i0, i1 + 1):
                if cover[j, i] & 1:
                    _cut_by(q, shapes, i, j, a0, inside, blocked)
    n_sub = SUB * SUB
    parent = np.empty(n_sub, np.int64)
    cut = 0
    for j in range(ny):
        for i in range(nx):
            if not cover[j, i] & 1:
                continue
            for k in range(n_sub):
                parent[k] = k
            for b in range(SUB):
                for a in range(SUB):
                    k = b * SUB + a
                    if a + 1 < SUB and not blocked[j, i] & (1 << (b * (SUB - 1) + a)):
                        _union(parent, k, k + 1)
                    if b + 1 < SUB and not blocked[j, i] & (1 << (SUB * (SUB - 1) + k)):
                        _union(parent, k, k + SUB)
            pieces = 0
            for k in range(n_sub):
                if inside[j, i] & (1 << k):
                    labels[j, i, k] = -1
                    continue
                root = _root(parent, k)
                labels[j, i, k] = root
                if root == k:
                    pieces += 1
            if pieces > 1:
                cut += 1
    return cut


@njit(cache=True, inline="always")
def _union(parent, a, b):
    ra = _root(parent, a)
    rb = _root(parent, b)
    if ra < rb:
        parent[rb] = ra
    elif rb < ra:
        parent[ra] = rb


def relabel(coupler: Any, fluid: Any) -> None:
    """Label the cut cells of ``fluid`` (its ``wall_cover``, into its ``wall_parts``) from the
    coupler's posed shapes again if the walls changed since the coupler's ``_wall_sig``, the
    signature it keeps."""
    c = coupler
    sig = float(wall_signature(c._shapes, c.dynamic, c.state))
    if sig != getattr(c, "_wall_sig", None):
        shape = fluid.wall_cover.shape
        label_cut_cells(c._shapes, c.dynamic, c.state, c.a0, fluid.wall_cover,
                        np.zeros(shape, np.uint16), np.zeros(shape, np.uint32),
                        fluid.wall_parts)
        c._wall_sig = sig
