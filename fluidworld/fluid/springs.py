"""Elastic and plastic springs between particles: jelly (Clavet et al. 2005, section 5).

A material with ``Material.elasticity > 0`` is a jelly: every fill of it (``fill_rect``,
``fill_circle``, ``add_particles``) is one piece, its particles joined by springs to their
neighbours within :data:`LINK_RADIUS` spacings at the distance they were added at (the rest
length). Each substep, one Gauss-Seidel pass over the springs moves the two ends of each along
their line by ``elasticity x`` the length error (split by mass, so momentum is kept). The
``ddr`` solver runs it on the positions in its relaxation stage (the velocities then come from
the moves, as for the rest of the relaxation); SRD and the constraint fluid, which move
particles by their velocities, run it on the predicted positions ``x + v h`` of the springs'
particles right before their positions are advanced, and those velocities take the change
(:meth:`SpringStore.push_springs`). Beyond a deformation of :data:`YIELD_RATIO`
of its rest length a spring's rest length creeps after the deformation at ``plasticity`` per
unit time (Clavet's plasticity ``alpha``: 0 is a perfectly elastic jelly that springs back, a
large value one that keeps the shape it is pressed into), and a spring stretched past
:data:`TEAR_RATIO` times its rest length breaks (the jelly tears).

Particle indices change at every sort and removal: the store carries the springs' ends through
both (:meth:`SpringStore._springs_after_sort`, :meth:`SpringStore._springs_after_remove`), and
a spring loses nothing but its dead end's partner when a drain takes a particle. Springs are
part of the state (pickled, copied, hashed when there are any).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

__all__ = ["LINK_RADIUS", "YIELD_RATIO", "TEAR_RATIO", "PASSES", "SpringStore", "link_pairs",
           "relax_springs", "push_springs_kernel", "follow_sort_indices", "remap_springs"]

#: Particles of one fill closer than this many spacings (``r_L``) are joined: a fill's hexagonal
#: lattice links each particle to its 6 nearest and 6 next-nearest neighbours (at 1 and sqrt 3).
LINK_RADIUS = 1.8
#: Deformation (fraction of the rest length) a spring takes before its rest length gives way.
YIELD_RATIO = 0.1
#: A spring stretched past this many times its rest length breaks.
TEAR_RATIO = 2.0
#: Gauss-Seidel passes over the springs per substep (the rest lengths creep a share of the
#: substep in each): one pass let a block dropped 400 units shred on landing (a third of its
#: springs torn; 3-5 % with four).
PASSES = 4


@njit(cache=True)
def link_pairs(pos, i0, i1, radius, out_a, out_b, out_rest):
    """Springs between the particles ``[i0, i1)`` closer than ``radius``: each pair once
    (``a < b``), in order of ``a``; writes up to ``len(out_a)`` of them and returns how many
    pairs there are (call again with room for that many if it is more)."""
    k = i1 - i0
    if k <= 1:
        return 0
    inv = 1.0 / radius
    x0 = pos[i0:i1, 0].min()
    y0 = pos[i0:i1, 1].min()
    nx = int((pos[i0:i1, 0].max() - x0) * inv) + 1
    key = np.empty(k, np.int64)
    for p in range(k):
        key[p] = int((pos[i0 + p, 1] - y0) * inv) * nx + int((pos[i0 + p, 0] - x0) * inv)
    order = np.argsort(key, kind="mergesort")
    sorted_key = key[order]
    r2 = radius * radius
    m = 0
    cap = len(out_a)
    for p in range(k):
        cx = int((pos[i0 + p, 0] - x0) * inv)
        cy = int((pos[i0 + p, 1] - y0) * inv)
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                if cx + dx < 0 or cx + dx >= nx or cy + dy < 0:
                    continue
                c = (cy + dy) * nx + cx + dx
                s = np.searchsorted(sorted_key, c)
                while s < k and sorted_key[s] == c:
                    q = order[s]
                    s += 1
                    if q <= p:
                        continue
                    ex = pos[i0 + q, 0] - pos[i0 + p, 0]
                    ey = pos[i0 + q, 1] - pos[i0 + p, 1]
                    d2 = ex * ex + ey * ey
                    if d2 < r2:
                        if m < cap:
                            out_a[m] = i0 + p
                            out_b[m] = i0 + q
                            out_rest[m] = np.sqrt(d2)
                        m += 1
    return m


@njit(cache=True)
def relax_springs(pos, mat, mass, springs, m, tables, h):
    """One Gauss-Seidel pass over the first ``m`` springs ``(a, b, rest)``: plastic creep of
    the rest length over the time ``h`` (0: none), tearing, then each end moved along the
    spring by ``elasticity x`` the length error, split by mass. ``tables`` = ``(elasticity,
    plasticity)`` per material (a spring takes the values of its first end). Broken springs are
    dropped in place (order kept); returns how many are left."""
    a, b, rest = springs
    elastic, plastic = tables
    kept = 0
    for s in range(m):
        i = a[s]
        j = b[s]
        ex = pos[j, 0] - pos[i, 0]
        ey = pos[j, 1] - pos[i, 1]
        r = np.sqrt(ex * ex + ey * ey)
        L = rest[s]
        if r > TEAR_RATIO * L:
            continue
        k = mat[i]
        alpha = plastic[k]
        if alpha > 0.0:
            d = YIELD_RATIO * L
            if r > L + d:
                L += min(h * alpha, 1.0) * (r - L - d)
            elif r < L - d:
                L -= min(h * alpha, 1.0) * (L - d - r)
        if r > 1e-12:
            mi = mass[mat[i]]
            mj = mass[mat[j]]
            c = elastic[k] * (r - L) / (r * (mi + mj))
            pos[i, 0] += c * mj * ex
            pos[i, 1] += c * mj * ey
            pos[j, 0] -= c * mi * ex
            pos[j, 1] -= c * mi * ey
        a[kept] = i
        b[kept] = j
        rest[kept] = L
        kept += 1
    return kept


@njit(cache=True)
def push_springs_kernel(fluid, springs, m, tables, h, scratch):
    """The velocity form of :func:`relax_springs`: the pass relaxes the predicted positions
    ``x + v h`` of the springs' particles (``fluid`` = ``(pos, vel, mat, mass)``), whose
    velocities then take the change. ``scratch`` = ``(pred, mark, touched)``: positions, flags
    (all zero on entry and on return) and a list of indices, each over the particles. Returns
    the springs left."""
    pos, vel, mat, mass = fluid
    a, b, _ = springs
    pred, mark, touched = scratch
    k = 0
    for s in range(m):
        for i in (a[s], b[s]):
            if not mark[i]:
                mark[i] = 1
                pred[i, 0] = pos[i, 0] + h * vel[i, 0]
                pred[i, 1] = pos[i, 1] + h * vel[i, 1]
                touched[k] = i
                k += 1
    kept = m
    for _ in range(PASSES):
        kept = relax_springs(pred, mat, mass, springs, kept, tables, h / PASSES)
    inv_h = 1.0 / h
    for t in range(k):
        i = touched[t]
        vel[i, 0] = (pred[i, 0] - pos[i, 0]) * inv_h
        vel[i, 1] = (pred[i, 1] - pos[i, 1]) * inv_h
        mark[i] = 0
    return kept


@njit(cache=True)
def follow_sort_indices(cell_of, n, cell_start, cursor, new_of_old):
    """Where the store's last counting sort put each of the ``n`` particles: ``cell_of`` holds
    each one's cell before the sort, which is stable, so the ``k``-th of a cell lands at
    ``cell_start[cell] + k``. ``cursor`` is scratch over the cells."""
    for i in range(n):
        cursor[cell_of[i]] = cell_start[cell_of[i]]
    for i in range(n):
        c = cell_of[i]
        new_of_old[i] = cursor[c]
        cursor[c] += 1


@njit(cache=True)
def remap_springs(springs, m, new_of_old):
    """Renumber the ends of the first ``m`` springs by ``new_of_old`` (``-1``: the particle is
    gone, and the spring with it); returns how many are left (order kept)."""
    a, b, rest = springs
    kept = 0
    for s in range(m):
        i = new_of_old[a[s]]
        j = new_of_old[b[s]]
        if i < 0 or j < 0:
            continue
        a[kept] = i
        b[kept] = j
        rest[kept] = rest[s]
        kept += 1
    return kept


class SpringStore:
    """The springs of a particle store (mixed into :class:`~fluidworld.fluid.FluidSystem`):
    ``(a, b, rest)`` arrays, the first :attr:`spring_count` live. Needs the store's ``pos``,
    ``mat``, ``_mass``, ``material_table`` and, for the sort, ``_cell_of``, ``_nb_start``."""

    pos: NDArray[np.float64]
    vel: NDArray[np.float64]
    mat: NDArray[np.uint8]
    _mass: NDArray[np.float64]
    _cell_of: NDArray[np.int64]
    _nb_start: NDArray[np.int64]
    r_l: float
    material_table: tuple

    def _init_springs(self) -> None:
        self.spring_count = 0
        self._spring_a = np.zeros(0, np.int64)
        self._spring_b = np.zeros(0, np.int64)
        self._spring_rest = np.zeros(0)

    @property
    def springs(self) -> NDArray[np.int64]:
        """``(spring_count, 2)`` copy of the live springs' particle indices (valid until the
        next sort or removal)."""
        m = self.spring_count
        return np.column_stack([self._spring_a[:m], self._spring_b[:m]])

    @property
    def spring_rest_lengths(self) -> NDArray[np.float64]:
        """Rest lengths of the live springs (a view)."""
        return self._spring_rest[: self.spring_count]

    def _spring_group(self) -> tuple[NDArray, NDArray, NDArray]:
        return (self._spring_a, self._spring_b, self._spring_rest)

    def link_particles(self, first: int, last: int) -> int:
        """Join the particles ``[first, last)`` by springs to their neighbours among them
        (closer than :data:`LINK_RADIUS` spacings); returns how many springs were made."""
        radius = LINK_RADIUS * self.r_l
        tmp = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
        need = link_pairs(self.pos, first, last, radius, *tmp)
        if need == 0:
            return 0
        m = self.spring_count
        if len(self._spring_a) < m + need:
            cap = max(m + need, 2 * len(self._spring_a))
            for name in ("_spring_a", "_spring_b", "_spring_rest"):
                old = getattr(self, name)
                new = np.zeros(cap, old.dtype)
                new[:m] = old[:m]
                setattr(self, name, new)
        link_pairs(self.pos, first, last, radius, self._spring_a[m:], self._spring_b[m:],
                   self._spring_rest[m:])
        self.spring_count = m + need
        return need

    def relax_springs(self, h: float) -> None:
        """:data:`PASSES` passes of the springs over the positions (the ``ddr`` solver runs
        them after its prediction, before the density relaxation, as Clavet does)."""
        if self.spring_count:
            tables = self._spring_tables()
            for _ in range(PASSES):
                self.spring_count = relax_springs(self.pos, self.mat, self._mass,
                                                  self._spring_group(), self.spring_count,
                                                  tables, h / PASSES)

    def push_springs(self, h: float) -> None:
        """The velocity form, for solvers that move particles by their velocities (SRD, the
        constraint fluid): the pass relaxes the predicted positions ``x + v h`` of the springs'
        particles, and their velocities take the change (the positions move with the
        advection that follows)."""
        m = self.spring_count
        if not m:
            return
        if len(getattr(self, "_spring_pred", ())) < len(self.pos):
            self._spring_pred = np.zeros_like(self.pos)
            self._spring_mark = np.zeros(len(self.pos), np.uint8)
            self._spring_touched = np.zeros(len(self.pos), np.int64)
        self.spring_count = push_springs_kernel(
            (self.pos, self.vel, self.mat, self._mass), self._spring_group(), m,
            self._spring_tables(), h,
            (self._spring_pred, self._spring_mark, self._spring_touched))

    def _spring_tables(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        return (np.array([m.elasticity for m in self.material_table], np.float64),
                np.array([m.plasticity for m in self.material_table], np.float64))

    def _springs_after_sort(self, n: int) -> None:
        """Carry the springs' ends through the sort that just ran on ``n`` particles."""
        if not self.spring_count:
            return
        new_of_old = np.empty(n, np.int64)
        cursor = np.empty(len(self._nb_start), np.int64)
        follow_sort_indices(self._cell_of, n, self._nb_start, cursor, new_of_old)
        self.spring_count = remap_springs(self._spring_group(), self.spring_count, new_of_old)

    def _springs_after_remove(self, keep: NDArray[np.bool_]) -> None:
        """Carry the springs through a removal (``keep``: the survivors among the live ones)."""
        if not self.spring_count:
            return
        new_of_old = np.where(keep, np.cumsum(keep) - 1, -1).astype(np.int64)
        self.spring_count = remap_springs(self._spring_group(), self.spring_count, new_of_old)
