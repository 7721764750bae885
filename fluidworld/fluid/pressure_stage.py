"""The ``cell_pressure`` stage's driver: which pressure kernels a FluidSystem runs, on which grids.

:meth:`FluidSystem.solve_pressure <fluidworld.fluid.FluidSystem.solve_pressure>` calls
:func:`solve_pressure` each substep: the cell deposit (:mod:`.pressure`), then by
``params.pressure_solver`` the paper's Eq. 7-10 (:mod:`.pressure`), the converged single-density
projection (:mod:`.pressure_converged`) or, where materials of different densities are present,
the variable-density one (:mod:`.pressure_variable`), each kernel in its serial or parallel
variant (``FluidSystem.parallel``). The grids are the fluid's own arrays (``cell_count``,
``cell_grad``, the zero-bordered potentials, the solver scratch), allocated by its constructor.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from . import pressure, pressure_converged, pressure_variable, pressure_walls, surface_ghost

if TYPE_CHECKING:
    from .system import FluidSystem

__all__ = ["solve_pressure"]

#: Over-relaxation factor of the red-black SOR sweeps (converged and variable-density solvers).
_SOR_OMEGA = 1.6
#: The wall cells the kernels get where there are none: an empty mask, which their loops skip.
_NO_WALLS = np.zeros((0, 0), np.uint8)


def solve_pressure(fs: FluidSystem, h: float) -> None:
    """Eq. 7-10: the velocity correction from the cell pressure (see ``pressure.py`` and
    ``pressure_converged.py``)."""
    p = fs.params
    par = fs.parallel_pressure
    deposit = pressure.deposit_cells_parallel if par else pressure.deposit_cells
    deposit(fs.pos, fs.vel, fs.count, p.a0, fs.nx, fs.ny, p.gamma,
            fs.solid_fraction, fs.solid_cell_velocity, fs.cell_count, fs.cell_velocity,
            fs._cell_of)
    if p.pressure_solver == "none":
        fs.cell_grad[:] = 0.0
        return
    # both solvers work on the rows that hold something (and those that did in the last
    # substep): the rest of a level is air and keeps its air values
    (pressure.row_spans_parallel if par else pressure.row_spans)(fs.cell_count, fs._spans)
    rows = fs._rows[: pressure.active_rows(fs._spans, fs._rows_was_active, fs._rows)]
    fs.variable_density = False
    if p.pressure_solver == "converged" and (fs.wall_cover_count or fs._wall_cell_count):
        fs._wall_cell_count = pressure_walls.mark_walls(
            fs.cell_count, fs.solid_fraction, fs.wall_cover, p.gamma, fs.wall_cells,
            fs._phi_pad, fs._dpot_pad)
    walls = fs.wall_cells if fs._wall_cell_count else _NO_WALLS
    cut = 0
    cells = (fs.cell_count, fs.solid_fraction, fs.cell_velocity)
    if p.pressure_solver == "converged" and fs.wall_cover_count:
        # the air behind the walls that cut cells counts as cover, for the solve only
        cut = pressure_walls.cut_cover(fs.pos, fs.count, p.a0, fs.wall_cover, fs.wall_parts,
                                       p.gamma, cells, fs._cut_seen, fs._cut_touched,
                                       fs._cut_saved)
    _solve(fs, h, rows, walls)
    if cut:
        pressure_walls.restore_cut_cover(cells, fs._cut_saved, cut)


def _solve(fs: FluidSystem, h: float, rows: NDArray[np.int64],
           walls: NDArray[np.uint8]) -> None:
    """The solve and the correction on the deposited cells."""
    p = fs.params
    par = fs.parallel_pressure
    pc = pressure_converged
    mixed = (pressure_variable.mixed_densities_parallel if par
             else pressure_variable.mixed_densities)
    if p.pressure_solver == "converged" and mixed(fs.mat, fs.count, fs._inv_rho):
        _solve_variable(fs, h, rows, walls)
        return
    cnt, solid, cvel = fs.cell_count, fs.solid_fraction, fs.cell_velocity
    if p.pressure_solver == "paper":
        pressure.paper_pressure(cnt, cvel, p.a0, p.gamma, h,
                                p.pressure_iterations, p.pressure_clamp, fs._div,
                                fs.cell_pressure, fs._p_tmp, fs.cell_grad, rows)
    else:
        rhs = pc.converged_rhs_parallel if par else pc.converged_rhs
        rhs(cnt, walls, cvel, p.a0, p.gamma, h,
            p.density_correction, fs._div, fs._rhs_density, rows, fs._row_sums, fs._row_air)
        pc.correct_covered_cells(cnt, solid, walls, fs.wall_cover, p.gamma, p.a0,
                                 p.density_correction, h, rows, fs._rhs_density)
        theta = _theta(fs, cnt, walls, rows)
        pc.solver_coefficients(cnt, walls, fs._invk, rows, theta)
        grad_of = pc.converged_correction_parallel if par else pc.converged_correction
        shift = p.density_correction > 0.0
        if shift:  # both potentials in the same sweeps (same coefficients, same rows)
            solve2 = pc.solve_padded_pair_parallel if par else pc.solve_padded_pair
            solve2(fs._phi_pad, fs._div, fs._dpot_pad, fs._rhs_density,
                   cnt, fs._invk, p.pressure_iterations, _SOR_OMEGA,
                   fs._spans, rows)
            grad_of(fs.cell_density_potential, cnt, walls, p.a0,
                    fs._grad_density, rows, theta)
        else:
            solve = pc.solve_padded_parallel if par else pc.solve_padded
            solve(fs._phi_pad, fs._div, cnt, fs._invk,
                  p.pressure_iterations, _SOR_OMEGA, fs._spans, rows)
        grad_of(fs.cell_pressure, cnt, walls, p.a0, fs.cell_grad, rows, theta)
        # one flood fill for both fields: neither may move a free body of water as a whole
        pc.remove_free_drift(cnt, walls, fs.cell_grad, fs._grad_density, shift,
                             solid, p.gamma, fs._flood, fs._flood_seen,
                             rows, fs.cover_excess)
        if shift and par:  # the shift and the correction in one pass over the particles
            pc.apply_shift_and_correction_parallel((fs.pos, fs.vel, fs.count), fs._cell_of,
                                                   fs._grad_density, fs.cell_grad, fs.nx, h)
            return
        if shift:
            pc.apply_cell_shift(fs.pos, fs.count, fs._cell_of, fs._grad_density, fs.nx, h)
    correct = (pressure.apply_cell_correction_parallel if par
               else pressure.apply_cell_correction)
    correct(fs.vel, fs.count, fs._cell_of, fs.cell_grad, fs.nx)


def _solve_variable(fs: FluidSystem, h: float, rows: NDArray[np.int64],
                    walls: NDArray[np.uint8]) -> None:
    """The converged solver when the fluid holds materials of different densities: the
    pressure per unit mass on a variable-coefficient operator (``pressure_variable.py``),
    the density correction volumetric as in the single-density path."""
    cnt, solid, cvel = fs.cell_count, fs.solid_fraction, fs.cell_velocity
    p = fs.params
    par = fs.parallel_pressure
    pc = pressure_converged
    pv = pressure_variable
    fs.variable_density = True
    rhs = pc.converged_rhs_parallel if par else pc.converged_rhs
    rhs(cnt, walls, cvel, p.a0, p.gamma, h, p.density_correction,
        fs._div, fs._rhs_density, rows, fs._row_sums, fs._row_air)
    pv.cell_specific_volume(fs.mat, fs.count, fs._cell_of, fs._inv_rho,
                            cnt, solid, p.gamma, fs._beta, rows)
    pv.face_coefficients(cnt, walls, fs._beta, fs._face_x, fs._face_y, fs._invd,
                         rows)
    solve = pv.solve_padded_var_parallel if par else pv.solve_padded_var
    solve(fs._phi_pad, fs._div, cnt, fs._face_x, fs._face_y, fs._invd,
          p.pressure_iterations, _SOR_OMEGA, fs._spans, rows)
    pv.converged_correction_var(fs.cell_pressure, cnt, walls, p.a0, fs._face_x,
                                fs._face_y, fs._beta, fs.cell_grad, rows)
    shift = p.density_correction > 0.0
    if shift:
        pc.solver_coefficients(cnt, walls, fs._invk, rows)
        solve1 = pc.solve_padded_parallel if par else pc.solve_padded
        solve1(fs._dpot_pad, fs._rhs_density, cnt, fs._invk,
               p.pressure_iterations, _SOR_OMEGA, fs._spans, rows)
        pc.converged_correction(fs.cell_density_potential, cnt, walls, p.a0,
                                fs._grad_density, rows)
    pc.remove_free_drift(cnt, walls, fs.cell_grad, fs._grad_density, shift,
                         solid, p.gamma, fs._flood, fs._flood_seen, rows, fs.cover_excess)
    if shift:
        shift_by = pc.apply_cell_shift_parallel if par else pc.apply_cell_shift
        shift_by(fs.pos, fs.count, fs._cell_of, fs._grad_density, fs.nx, h)
    correct = (pv.apply_cell_correction_var_parallel if par
               else pv.apply_cell_correction_var)
    correct(fs.vel, fs.mat, fs.count, fs._cell_of, fs.cell_grad, fs._inv_rho)


def _theta(fs: FluidSystem, cnt: NDArray[np.float64], walls: NDArray[np.uint8],
           rows: NDArray[np.int64]) -> NDArray[np.float64]:
    """The ghost-fluid surface distances of ``FluidParams.surface_ghost``
    (:func:`.surface_ghost.surface_theta`), or an empty grid (the surface at the air cell's
    centre) when it is off or gravity is not mostly along ``-y``."""
    gx, gy = fs.params.gravity
    if not getattr(fs.params, "surface_ghost", False) or not gy < -abs(gx):
        return pressure_converged.NO_THETA
    th = getattr(fs, "_theta_grid", None)
    if th is None or th.shape != cnt.shape:
        th = fs._theta_grid = np.ones(cnt.shape)
    hs = getattr(fs, "_theta_heights", None)
    if hs is None or len(hs) != cnt.shape[1]:
        hs = fs._theta_heights = np.empty(cnt.shape[1])
    tops = getattr(fs, "_theta_tops", None)
    if tops is None or tops.shape[1:] != cnt.shape:
        tops = fs._theta_tops = np.empty((2, *cnt.shape))
    surface_ghost.cell_tops(fs.pos, fs.count, fs._cell_of, tops)
    surf = (fs.params.a0, fs.r_l * math.sqrt(3.0) / 4.0, 1.5 * fs.r_l)
    surface_ghost.surface_theta(cnt, walls, fs.solid_fraction, fs.params.gamma, th,
                                (fs._phi_pad, fs._dpot_pad), rows, hs, tops, surf)
    return th
