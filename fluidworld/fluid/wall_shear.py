"""Viscous walls: the shear stress of a viscous material at the walls (no slip).

The ``viscosity`` stage (:mod:`.viscosity`) diffuses momentum between the fluid's cells only;
empty cells and walls take no stress, so without this a viscous fluid slides along walls
freely: honey fell down a vertical channel 60 units wide as fast as water (614 units/s after a
second against water's 687; with the walls' hold it runs at ~94, a parabola across the channel
whose curvature gives ~8,100 units^2/s, where the vortex of :mod:`fluidworld.fidelity.viscosity`
gives ~6,660).

Here each particle of a material with ``viscosity > 0`` whose nearest still solid (the domain's
wall solids, static shapes, kinematic bodies: solids the fluid does not wet) lies within
``reach`` loses the fraction ``kappa = x / (1 + x)``, ``x = 2 nu h / delta^2``, of its velocity
along that wall, relative to the solid's: the first row of fluid, ``delta`` (a row of the fill
lattice, ``r_L sqrt 3 / 2``) thick with its centre half a row off the wall, under the stress
``mu u / (delta / 2)`` of a no-slip wall, stepped by implicit Euler. A particle alone on a wall
under gravity ``g`` along it then slides at ``g delta^2 / (2 nu)``, as a film of that thickness
does (honey's knob at the game preset: ~1.6 units/s; ``kappa = min(1, x)`` held it on the wall
for good). For honey ``x`` is ~4.8 a substep (``kappa`` 0.83); the ``viscosity`` stage carries
the deficit into the bulk (``ddr`` and the constraint solver diffuse their viscous materials
with ``DDR_VISCOSITY_SCALE`` / ``CONSTRAINT_VISCOSITY_SCALE`` times the knob, and so does
this). The motion into and out of the wall is the containment's and the pressure's,
untouched. Dynamic bodies are left to the coupler's drag, which has the reaction on the body.

The solvers run it once a substep in their ``advect`` stage, after their pressure, on the
velocities the particles then move by (:meth:`~fluidworld.fluid.FluidSystem.shear_walls`): run
in the ``viscosity`` stage, before the pressure, it took the gravity kick off the rows along a
side wall that the pressure was about to meet, and a honey tank at rest moved at 1.14 units/s
against water's 0.53 (0.47 against 0.43 without the walls' hold).

Opt-in (``FluidParams(viscous_walls=True)``): walls that hold the honey along them pin the
longest mode of a honey layer overturning in a tank (the honey sinks along one wall and the
water rises along the other), and a flat layer laid on water 100 + 100 deep in a tank 400 wide
had 0.665 / 0.866 / 0.623 of its honey under the water's median at 15 s (seeds 0-2) against
0.974 / 0.932 / 0.930 with free-slip walls; a Navier slip length of 10 / 30 units (the wall's
stress ``mu u / (delta / 2 + l)``) still left 0.771 / 0.495 / 0.734 and 0.946 / 0.834 / 0.823.

Each particle writes only its own velocity, so the result is the same for any thread count.
Materials without ``viscosity`` (water, oil) are never touched: their scenes step bit for bit as
before.

Groups (tuples, unpacked on the kernels' first lines): ``fluid = (pos, vel, mat, n)``;
``solids = (solid_pos, solid_vel, solid_wet, s_start, s_order)`` (the solids binned on the
neighbour grid); ``grid = (nb_nx, nb_ny, inv_nb)``; ``consts = (reach, rate)`` with ``rate =
2 h / delta^2`` (``x = nu rate``).
"""

from __future__ import annotations

import math

from numba import njit, prange

from .ddr import _cell  # a coordinate's cell, clamped to the grid

__all__ = ["CHUNK", "REACH", "shear_at_walls", "wall_rate"]

#: Particles per parallel work item.
CHUNK = 1024
#: How far from its nearest still solid a particle takes the wall's stress, in ``r_L``: the
#: solids lie 0.75 ``r_L`` inside a surface and the first row of fluid rests ~0.5 ``r_L``
#: outside it, the second a row (0.87 ``r_L``) further.
REACH = 1.6


def wall_rate(h: float, r_l: float) -> float:
    """``2 h / delta^2`` for a substep ``h``: ``x = nu * wall_rate`` with ``delta``
    the fill lattice's row spacing ``r_L sqrt 3 / 2``."""
    delta = r_l * math.sqrt(3.0) / 2.0
    return 2.0 * h / (delta * delta)


@njit(cache=True)
def _shear_range(lo, hi, fluid, nu_table, solids, grid, consts):
    pos, vel, mat, _ = fluid
    solid_pos, solid_vel, solid_wet, s_start, s_order = solids
    nb_nx, nb_ny, inv_nb = grid
    reach, rate = consts
    r2max = reach * reach
    hit = 0
    for i in range(lo, hi):
        nu = nu_table[mat[i]]
        if nu <= 0.0:
            continue
        xi = pos[i, 0]
        yi = pos[i, 1]
        best = r2max
        bs = -1
        x0 = _cell(xi - reach, inv_nb, nb_nx)
        x1 = _cell(xi + reach, inv_nb, nb_nx)
        for yy in range(_cell(yi - reach, inv_nb, nb_ny), _cell(yi + reach, inv_nb, nb_ny) + 1):
            for t in range(s_start[yy * nb_nx + x0], s_start[yy * nb_nx + x1 + 1]):
                s = s_order[t]
                if solid_wet[s]:
                    continue
                dx = xi - solid_pos[s, 0]
                dy = yi - solid_pos[s, 1]
                r2 = dx * dx + dy * dy
                if r2 < best and r2 > 0.0:
                    best = r2
                    bs = s
        if bs < 0:
            continue
        r = math.sqrt(best)
        nx = (xi - solid_pos[bs, 0]) / r
        ny = (yi - solid_pos[bs, 1]) / r
        ux = vel[i, 0] - solid_vel[bs, 0]
        uy = vel[i, 1] - solid_vel[bs, 1]
        un = ux * nx + uy * ny
        x = nu * rate
        k = x / (1.0 + x)
        vel[i, 0] -= k * (ux - un * nx)
        vel[i, 1] -= k * (uy - un * ny)
        hit += 1
    return hit


@njit(cache=True)
def _shear_serial(fluid, nu_table, solids, grid, consts):
    return _shear_range(0, fluid[3], fluid, nu_table, solids, grid, consts)


@njit(cache=True, parallel=True)
def _shear_parallel(fluid, nu_table, solids, grid, consts):
    n = fluid[3]
    nc = (n + CHUNK - 1) // CHUNK
    hit = 0
    for t in prange(nc):
        hit += _shear_range(t * CHUNK, min(n, (t + 1) * CHUNK), fluid, nu_table, solids, grid,
                            consts)
    return hit


def shear_at_walls(fluid, nu_table, solids, grid, consts, parallel=False) -> int:
    """The walls' shear on the viscous particles (module docstring); returns how many particles
    it acted on. ``nu_table``: each material's kinematic viscosity (0: not touched)."""
    fn = _shear_parallel if parallel and fluid[3] > CHUNK else _shear_serial
    return int(fn(fluid, nu_table, solids, grid, consts))
