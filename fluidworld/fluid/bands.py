"""Per-cell sums in parallel, bit-identical to the serial loops: cell bands.

A serial loop that adds each particle into its cell (the SRD cell sums, the counting sort's
counts and scatter) fixes the order of every cell's sum: particle order. Splitting the
*particles* between threads would change that order (and the bits of the sums). Splitting the
*cells* does not: each thread owns a band of consecutive cell indices, walks the particles in
order and takes only those in its band, so every cell still sums its particles in particle order,
and no two threads write the same cell.

Walking all particles per band would cost ``bands x n``. But the particles are sorted by cell
(the ``bin`` stage sorts them each substep, and they move little before the next use), so a band's
particles sit in a narrow index range: the particles are cut into chunks whose lowest and highest
cell are known (:func:`chunk_cells`), and a band visits only the chunks that overlap it. Out of
order particles cost time, never correctness: a chunk's range covers every particle in it.

Band bounds (:func:`band_bounds`) are the cells of the particles at equal index steps, so bands
hold about equal numbers of particles.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .binning import _cell_index

__all__ = ["BANDS", "CHUNK", "chunk_cells", "band_bounds", "sort_particles_parallel"]

#: Particles per chunk of the band walk.
CHUNK = 512
#: Cell bands per parallel sum: a few per thread, so that a late thread holds up little (a
#: constant: numba cannot cache a kernel that asks for the thread count).
BANDS = 16


@njit(cache=True)
def _chunk_range(i0, i1, cell_of):
    lo = np.int64(1) << 62
    hi = np.int64(-1)
    # unsigned index: vector code (9 us for 100k particles, 74 us with a signed index)
    for i in range(np.uint64(i0), np.uint64(i1)):
        c = cell_of[i]
        lo = min(lo, c)
        hi = max(hi, c)
    return lo, hi


@njit(cache=True, parallel=True)
def chunk_cells(cell_of, n, cmin, cmax):
    """Lowest and highest cell of each :data:`CHUNK` of ``cell_of[:n]`` into ``cmin``/``cmax``
    (at least ``ceil(n / CHUNK)`` long)."""
    for t in prange((n + CHUNK - 1) // CHUNK):
        cmin[t], cmax[t] = _chunk_range(t * CHUNK, min(n, (t + 1) * CHUNK), cell_of)


@njit(cache=True)
def band_bounds(cell_of, n, lo, hi, bands):
    """``bands + 1`` non-decreasing cell bounds from ``lo`` to ``hi + 1``: band ``b`` owns the
    cells ``bounds[b]:bounds[b + 1]``, about ``n / bands`` particles each when they are sorted."""
    bounds = np.empty(bands + 1, np.int64)
    bounds[0] = lo
    bounds[bands] = hi + 1
    for b in range(1, bands):
        c = cell_of[(b * n) // bands]
        bounds[b] = min(max(c, bounds[b - 1]), hi + 1)
    return bounds


@njit(cache=True)
def _band_counts(c0, c1, cmin, cmax, cell_of, n, cell_start):
    """Count the particles of cells ``c0:c1`` into ``cell_start[c + 1]``; return their sum."""
    for c in range(c0, c1):
        cell_start[c + 1] = 0
    total = 0
    for t in range(len(cmin)):
        if cmax[t] < c0 or cmin[t] >= c1:
            continue
        for i in range(t * CHUNK, min(n, (t + 1) * CHUNK)):
            c = cell_of[i]
            if c0 <= c < c1:
                cell_start[c + 1] += 1
                total += 1
    return total


@njit(cache=True)
def _band_scatter(c0, c1, start, chunks, cell_of, src, dst, keep_pos, cell_start):
    """Prefix sums of cells ``c0:c1`` from ``start`` (as the serial sort: ``cell_start[c + 1]``
    = first index of cell c, advanced by the scatter to that of c + 1), then the band's
    particles copied in order from ``src = (pos, vel, mat, n)`` to ``dst = (pos, vel, mat)``."""
    cmin, cmax = chunks
    pos, vel, mat, n = src
    run = start
    for c in range(c0, c1):
        k = cell_start[c + 1]
        cell_start[c + 1] = run
        run += k
    keep = keep_pos.shape[0] >= n
    for t in range(len(cmin)):
        if cmax[t] < c0 or cmin[t] >= c1:
            continue
        for i in range(t * CHUNK, min(n, (t + 1) * CHUNK)):
            c = cell_of[i]
            if c < c0 or c >= c1:
                continue
            d = cell_start[c + 1]
            cell_start[c + 1] = d + 1
            dst[0][d, 0] = pos[i, 0]
            dst[0][d, 1] = pos[i, 1]
            dst[1][d, 0] = vel[i, 0]
            dst[1][d, 1] = vel[i, 1]
            dst[2][d] = mat[i]
            if keep:
                keep_pos[d, 0] = pos[i, 0]
                keep_pos[d, 1] = pos[i, 1]


@njit(cache=True)
def _cells_of(i0, i1, pos, inv_h, nx, ny, cell_of):
    for i in range(i0, i1):
        cell_of[i] = _cell_index(pos[i, 0], pos[i, 1], inv_h, nx, ny)


@njit(cache=True, parallel=True)
def sort_particles_parallel(fluid, inv_h, nx, ny, out, cell_start, cell_of, span, keep_pos,
                            bands):
    """:func:`.binning.sort_particles` with the cell bands in parallel (``bands`` of them, a
    few per thread); the same arguments and bit-identical results."""
    pos = fluid[0]
    n = fluid[3]
    ncell = nx * ny
    nchunk = (n + CHUNK - 1) // CHUNK
    for t in prange(nchunk):
        _cells_of(t * CHUNK, min(n, (t + 1) * CHUNK), pos, inv_h, nx, ny, cell_of)
    cmin = np.empty(max(nchunk, 1), np.int64)
    cmax = np.empty(max(nchunk, 1), np.int64)
    chunk_cells(cell_of, n, cmin, cmax)
    lo = cmin[:nchunk].min() if n > 0 else ncell
    hi = cmax[:nchunk].max() if n > 0 else -1
    a = min(lo, span[0])
    b = ncell - 1 if n != span[2] else max(hi, span[1])
    if n > 0:
        bounds = band_bounds(cell_of, n, lo, hi, bands)
        sizes = np.zeros(bands, np.int64)
        for k in prange(bands):
            sizes[k] = _band_counts(bounds[k], bounds[k + 1], cmin, cmax, cell_of, n,
                                    cell_start)
        starts = np.zeros(bands, np.int64)
        for k in range(1, bands):
            starts[k] = starts[k - 1] + sizes[k - 1]
        for k in prange(bands):
            _band_scatter(bounds[k], bounds[k + 1], starts[k], (cmin, cmax), cell_of, fluid,
                          out, keep_pos, cell_start)
    for c in range(a, min(lo, ncell) + 1):
        cell_start[c] = 0
    for c in range(hi + 2, b + 2):
        cell_start[c] = n
    span[0] = lo
    span[1] = hi
    span[2] = n
