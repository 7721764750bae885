"""Half neighbour lists and row stripes for the ``local_repulsion`` stage (:mod:`.repulsion`).

The Jacobi passes of a substep share one *half* neighbour list: built once from the sorted bins
with a cutoff r_L * (1 + skin), it still holds every pair within r_L after the passes have moved
particles by less than skin * r_L / 2 each. Each pair is listed once, under its lower (sorted)
index, so a pass evaluates Eq. 6 once per pair and gives i and j their equal and opposite
shares. Because the particles are sorted by cell, the partners of i that follow it in sort order
lie in two contiguous index ranges: the rest of its own cell and the cell to its right, and the
three cells of the row above.

Rows of the neighbour grid are cut into *stripes* of about equal particle counts. A pass writes
to i and to partners at most one row up, so stripes of the same parity never write the same
particle: the even stripes run in parallel, then the odd ones. The serial kernels walk the same
stripes in the same order, so results do not depend on the thread count (bit-identical). The
list build and the passes share the stripes and their split between threads.

The list kernels take grouped arguments (tuples; :mod:`.repulsion` passes the same ``grid`` and
``lists``):

* ``grid = (n_start, nx, ny, bounds, nstripes, row_work)``: the sorted bins (``n_start``,
  ``nx * ny + 1``) on the ``nx`` x ``ny`` neighbour grid, the stripes' first rows ``bounds`` and
  their number ``nstripes`` (:func:`stripe_rows`), and each row's pair count ``row_work``;
* ``solids = (s_pos, s_start, s_order, near)``: the solid particles, their bins
  (``binning.bin_points``) and the cells with a solid in their 3x3 block
  (``binning.mark_near_cells``);
* ``lists = (nbr, nbr_count, s_nbr, s_nbr_count)``: the half fluid lists and the full solid
  lists with their counts (outputs of the build).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = [
    "N_STRIPES",
    "stripe_rows",
    "row_pairs",
    "build_half_lists",
    "build_half_lists_parallel",
    "list_stats",
    "list_stats_rows",
]

#: Stripes per pass (fewer if the grid has fewer rows): 16 per parity balance up to 16 threads.
N_STRIPES = 32


@njit(cache=True)
def stripe_rows(n_start, nx, ny, nstripes, bounds, row_work):
    """Cut the grid rows into at most ``nstripes`` bands of about equal work.

    A row's work is its particle count plus ``row_work[row]`` (its pair count from
    :func:`row_pairs`, or zeros to balance particle counts alone). ``bounds``
    (``nstripes + 1``) receives the first row of each stripe and ``ny`` after the last; every
    stripe has at least one row. Returns the number of stripes.
    """
    total = n_start[ny * nx]
    for r in range(ny):
        total += row_work[r]
    bounds[0] = 0
    k = 0
    acc = 0  # work in the rows before row r
    r = 0
    for s in range(1, nstripes):
        target = (total * s) // nstripes
        # the next stripe starts at the first row (after the current stripe's first) whose
        # preceding work reaches the target
        while r < bounds[k] + 1 and r < ny:
            acc += n_start[(r + 1) * nx] - n_start[r * nx] + row_work[r]
            r += 1
        while r < ny and acc < target:
            acc += n_start[(r + 1) * nx] - n_start[r * nx] + row_work[r]
            r += 1
        if r >= ny:
            break
        k += 1
        bounds[k] = r
    k += 1
    bounds[k] = ny
    return k


@njit(cache=True)
def row_pairs(n_start, nx, ny, nbr_count, s_nbr_count, out):
    """``out[row]``: the fluid and solid pairs listed for the particles of each grid row (the
    work of a repulsion pass there, for :func:`stripe_rows`)."""
    for r in range(ny):
        w = 0
        for i in range(n_start[r * nx], n_start[(r + 1) * nx]):
            w += nbr_count[i] + s_nbr_count[i]
        out[r] = w


@njit(cache=True)
def _stripe_work(n_start, nx, bounds, nstripes, row_work, first, step, cum):
    """``cum[t + 1] = cum[t] +`` the work (particles plus ``row_work``) of stripe
    ``first + step * t``; returns the number of stripes counted."""
    m = 0
    cum[0] = 0
    for s in range(first, nstripes, step):
        w = n_start[bounds[s + 1] * nx] - n_start[bounds[s] * nx]
        for r in range(bounds[s], bounds[s + 1]):
            w += row_work[r]
        cum[m + 1] = cum[m] + w
        m += 1
    return m


@njit(cache=True, inline="always")
def _share(cum, m, nw, w):
    """First of the ``m`` stripes that thread ``w`` of ``nw`` takes: contiguous runs of about
    equal work (``cum`` from :func:`_stripe_work`)."""
    if w >= nw:
        return m
    target = cum[m] * w // nw
    t = 0
    while t < m and cum[t] < target:
        t += 1
    if t > 0 and target - cum[t - 1] < cum[t] - target:
        t -= 1
    return t


@njit(cache=True)
def _half_list_row(cy, pos, grid, solids, cutoff, lists):
    n_start, nx, ny, _, _, _ = grid
    s_pos, s_start, s_order, near = solids
    nbr, nbr_count, s_nbr, s_nbr_count = lists
    row = cy * nx
    if n_start[row] == n_start[row + nx]:
        return  # no particle in this row
    c2 = cutoff * cutoff
    # unsigned particle indices: numba then skips the negative-index wrap-around on every
    # candidate's loads and store (~10 % of the build)
    kmax1 = np.uint64(nbr.shape[1] - 1)
    ksmax = s_nbr.shape[1]
    one = np.uint64(1)
    up = row + nx
    has_up = cy + 1 < ny
    y0 = max(cy - 1, 0)
    y1 = min(cy + 2, ny)
    for cx in range(nx):
        c = row + cx
        a = np.uint64(n_start[c])
        b = np.uint64(n_start[c + 1])
        if a == b:
            continue
        x0 = max(cx - 1, 0)
        x1 = min(cx + 2, nx)
        end0 = np.uint64(n_start[row + x1])  # the rest of this cell and the cell to the right
        lo1 = np.uint64(0)
        hi1 = np.uint64(0)
        if has_up:  # the three cells above
            lo1 = np.uint64(n_start[up + x0])
            hi1 = np.uint64(n_start[up + x1])
        s_any = near[c] != 0  # a solid in the 3x3 block (binning.mark_near_cells)
        for i in range(a, b):
            xi = pos[i, 0]
            yi = pos[i, 1]
            k = np.uint64(0)
            # branch-free: write every candidate, advance only on a hit (hits are ~45 % of
            # candidates, in random order: a branch here mispredicts constantly)
            for j in range(i + one, end0):
                rx = pos[j, 0] - xi
                ry = pos[j, 1] - yi
                nbr[i, min(k, kmax1)] = j
                k += np.uint64(rx * rx + ry * ry < c2)
            for j in range(lo1, hi1):
                rx = pos[j, 0] - xi
                ry = pos[j, 1] - yi
                nbr[i, min(k, kmax1)] = j
                k += np.uint64(rx * rx + ry * ry < c2)
            nbr_count[i] = k  # may exceed the width: the caller widens and rebuilds
            ks = 0
            if s_any:
                for yy in range(y0, y1):
                    r0 = yy * nx
                    for q in range(s_start[r0 + x0], s_start[r0 + x1]):
                        s = np.uint64(s_order[q])
                        rx = s_pos[s, 0] - xi
                        ry = s_pos[s, 1] - yi
                        if rx * rx + ry * ry < c2:
                            if ks < ksmax:
                                s_nbr[i, ks] = s
                            ks += 1
            s_nbr_count[i] = ks


@njit(cache=True)
def build_half_lists(pos, grid, solids, cutoff, lists):
    """Half fluid lists and full solid lists within ``cutoff`` of every sorted particle (serial).

    ``grid``, ``solids``, ``lists``: see the module docstring. ``nbr`` (n, K) receives, for
    particle i, its partners j > i; ``s_nbr`` (n, Ks) all its solid neighbours (looked for only
    in cells flagged in ``near``, see ``binning.mark_near_cells``); ``*_count`` the true counts.
    The fluid list is written branch-free and needs a spare slot: it is complete only where
    ``nbr_count < K`` (and ``s_nbr_count <= Ks``); otherwise widen it and build again
    (:func:`list_stats` says). ``row_work`` (see :func:`stripe_rows`) only balances the threads
    of the parallel variant.
    """
    _, _, _, bounds, nstripes, _ = grid
    for s in range(nstripes):
        for cy in range(bounds[s], bounds[s + 1]):
            _half_list_row(cy, pos, grid, solids, cutoff, lists)


@njit(cache=True, parallel=True)
def build_half_lists_parallel(pos, grid, solids, cutoff, lists, nthreads):
    """:func:`build_half_lists` with each of ``nthreads`` threads taking a run of stripes of
    about equal work (particles plus the pairs of ``row_work``); identical lists."""
    n_start, nx, _, bounds, nstripes, row_work = grid
    nw = max(nthreads, 1)
    cum = np.empty(nstripes + 1, np.int64)
    m = _stripe_work(n_start, nx, bounds, nstripes, row_work, 0, 1, cum)
    for w in prange(nw):
        for s in range(_share(cum, m, nw, w), _share(cum, m, nw, w + 1)):
            for cy in range(bounds[s], bounds[s + 1]):
                _half_list_row(cy, pos, grid, solids, cutoff, lists)


@njit(cache=True)
def list_stats(nbr_count, s_nbr_count, n, touch):
    """Longest fluid and solid list, and the particles that have solid neighbours.

    ``touch`` receives the indices of particles with ``s_nbr_count > 0``. Returns
    ``(max fluid count, max solid count, number of touching particles)``.
    """
    k = 0
    ks = 0
    nt = 0
    for i in range(n):
        k = max(k, nbr_count[i])
        c = s_nbr_count[i]
        if c > 0:
            ks = max(ks, c)
            touch[nt] = i
            nt += 1
    return k, ks, nt


@njit(cache=True)
def list_stats_rows(n_start, nx, ny, nbr_count, s_nbr_count, n, touch, out):
    """:func:`list_stats` and :func:`row_pairs` in one pass over the counts: returns the same
    ``(max fluid count, max solid count, number of touching particles)`` and fills ``touch`` and
    ``out`` (the pairs of each grid row) the same."""
    k = 0
    ks = 0
    nt = 0
    for r in range(ny + 1):
        i0 = n_start[r * nx]
        i1 = n_start[(r + 1) * nx] if r < ny else n  # (after the rows: none if all are binned)
        w = 0
        # the sums and maxima apart from the list of touching particles, unsigned indices: the
        # first loop then runs as vector code (80 us a call at 100k particles, from 159)
        for i in range(np.uint64(i0), np.uint64(i1)):
            a = nbr_count[i]
            c = s_nbr_count[i]
            k = max(k, a)
            ks = max(ks, c)
            w += a + c
        for i in range(np.uint64(i0), np.uint64(i1)):
            if s_nbr_count[i] > 0:
                touch[nt] = i
                nt += 1
        if r < ny:
            out[r] = w
    return k, ks, nt
