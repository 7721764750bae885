"""The exchange stage's per-body sums with the bodies in parallel, bit-identical to the serial
kernels.

The contact, pressure, submerged-area, buoyancy and drag sums of
:func:`.kernels.exchange_impulses` each add a body's samples into that body's own accumulators
(``out_j[b]``, ``out_tau[b]``, ``submerged[b]``, ``box[b]``; the drag's reaction on the fluid,
whose particles bodies can share, stays serial). The coupler keeps every sample array grouped
by body (its ``_build`` orders the shapes by body, so each body's samples are one run, in the
order they had before), and :func:`body_starts` gives the runs. One task per body then sums its
own run in the serial kernels' order, so each accumulator receives the same additions in the
same order: the results are the serial kernels' bits, for any number of threads.

Measured on the floating-crates scene at 100k particles and 50 crates (2 threads): these sums
were ~0.7 ms of the step's 1.8 ms ``exchange``, all of it on one core.

The ``sync_bodies`` stage's poses and cover stay serial: run over chunks of samples in
parallel they took 97 us a call on two threads against 93 us serial (12,800 interior samples;
the parallel variant alone took 126 us on one thread).

The kernels take the coupling's groups (:mod:`.kernels`), and ``starts = (out_start, in_start,
surf_start)``: :func:`body_starts` of the outline, the interior samples and the surface
quadrature.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .buoyancy import buoyancy_range, column_sums, contact_range
from .fluid_forces import drag_range, drag_reaction, pressure_range
from .surface import bounds_range, submerged_range

__all__ = ["body_starts", "grouped", "contact_pressure_bounds_parallel",
           "submerged_buoyancy_parallel", "drag_parallel"]


@njit(cache=True)
def grouped(owner):
    """Whether ``owner`` never decreases (every body's samples are one run, in body order)."""
    for k in range(1, owner.shape[0]):
        if owner[k] < owner[k - 1]:
            return False
    return True


@njit(cache=True)
def body_starts(owner, nb, out):
    """``out[b]..out[b + 1]`` (``out``: nb + 1) is body ``b``'s run of samples in ``owner``,
    which must be :func:`grouped`."""
    k = 0
    m = owner.shape[0]
    for b in range(nb + 1):
        while k < m and owner[k] < b:
            k += 1
        out[b] = k


@njit(cache=True, parallel=True)
def contact_pressure_bounds_parallel(starts, outline, interior, bodies, cells, consts):
    """Per body in parallel: :func:`~.buoyancy.sum_contact_impulses`, then (``push``)
    :func:`~.fluid_forces.pressure_impulses`, then :func:`~.surface.sample_bounds` (``consts``:
    ``(a0, spacing, kick_x, kick_y, push, awash)``; the box is grown by ``spacing / 2``)."""
    out_start, in_start, surf_start = starts
    out_local, out_owner, out_normal, out_pos, out_vel, out_imp, out_inset = outline
    in_local, in_owner, in_area, in_pos, in_vel, cover_area, in_arm = interior
    state, dynamic, levels, kick_levels, body_box, prof, out_j, out_tau, submerged = bodies
    a0, spacing, kick_x, kick_y, push, awash = consts
    half = 0.5 * spacing
    for b in prange(state.shape[0]):
        contact_range(out_start[b], out_start[b + 1], out_pos, out_imp, out_normal, out_owner,
                      state, out_j, out_tau)
        if push:
            pressure_range(in_start[b], in_start[b + 1], interior, bodies, cells, a0, spacing,
                           kick_x, kick_y, awash)
        body_box[b, 0] = 1e300
        body_box[b, 1] = 1e300
        body_box[b, 2] = -1e300
        body_box[b, 3] = -1e300
        bounds_range(in_start[b], in_start[b + 1], in_pos, in_owner, half, body_box)
        if body_box[b, 0] > body_box[b, 2]:
            for c in range(4):
                body_box[b, c] = np.nan


@njit(cache=True, parallel=True)
def submerged_buoyancy_parallel(starts, interior, surface, bodies, consts):
    """Per body in parallel: :func:`~.surface.submerged_areas`, then (``buoyancy``)
    :func:`~.buoyancy.surface_buoyancy` (``consts``: ``(a0, spacing, g_h, buoyancy)``)."""
    out_start, in_start, surf_start = starts
    in_local, in_owner, in_area, in_pos, in_vel, cover_area, in_arm = interior
    state, dynamic, levels, kick_levels, body_box, prof, out_j, out_tau, submerged = bodies
    a0, spacing, g_h, buoyancy = consts
    nb = state.shape[0]
    below = np.empty((nb, prof.shape[1]))
    for b in prange(nb):
        submerged_range(in_start[b], in_start[b + 1], in_pos, in_area, in_owner, levels,
                        spacing, submerged)
        if buoyancy and surf_start[b + 1] > surf_start[b]:
            column_sums(prof, b, below[b])
            buoyancy_range(surf_start[b], surf_start[b + 1], surface, state, levels, prof,
                           below[b], a0, g_h, (out_j, out_tau))


@njit(cache=True, parallel=True)
def drag_parallel(starts, outline, bodies, fluid, mass_table, bins, consts, scratch):
    """:func:`~.fluid_forces.drag_impulses` with each body's impulses summed in parallel
    (:func:`~.fluid_forces.drag_range`, reading the fluid only); the reaction on the fluid,
    whose particles several bodies can share, stays serial. ``consts = (a0, r_l, coef)``,
    ``scratch = (jt, msum)`` as there."""
    out_start = starts[0]
    jt, msum = scratch
    jt[:outline[3].shape[0]] = 0.0
    for b in prange(bodies[0].shape[0]):
        drag_range(out_start[b], out_start[b + 1], outline, bodies, fluid, mass_table, bins,
                   consts, jt, msum)
    drag_reaction(outline, bodies, fluid, mass_table, bins, consts[1], jt, msum)
