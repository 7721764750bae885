"""Physics acceptance of the SRD fluid core (issue: SRD fluid core)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fluidworld import World, scenes
from fluidworld.fluid import FluidParams, FluidSystem, Material


def _inside(fs: FluidSystem) -> np.ndarray:
    p = fs.params
    x, y = fs.positions[:, 0], fs.positions[:, 1]
    return (x >= 0) & (x <= p.width) & (y >= 0) & (y <= p.height)


def test_dam_break_paper_preset_2000_steps_keeps_every_particle():
    fs = scenes.dam_break()  # FluidParams.paper(): Eq. 7-10 exactly
    n0 = fs.count
    fs.step(2000)
    assert fs.count == n0
    assert np.isfinite(fs.positions).all() and np.isfinite(fs.velocities).all()
    assert _inside(fs).all(), f"{(~_inside(fs)).sum()} particles outside the domain"


def test_dam_break_volume_conserved_and_lost_without_pressure():
    # Area is measured by scenes.fluid_area: the settled fluid is cut into a0-wide columns and
    # each column counts from the floor to its highest particle plus half a lattice layer; the
    # initial block is measured the same way.
    areas = {}
    for solver in ("converged", "none"):
        fs = scenes.dam_break(pressure_solver=solver)
        a_start = scenes.fluid_area(fs)
        fs.step(1500)  # the wave has settled into a pool by then (paper Fig. 3 runs 650 frames)
        areas[solver] = scenes.fluid_area(fs) / a_start
    assert abs(areas["converged"] - 1.0) <= 0.05, areas
    assert areas["none"] < 0.92, areas  # repulsion only: clearly compressed (Fig. 3 bottom row)
    assert areas["converged"] - areas["none"] > 0.07, areas


@pytest.mark.parametrize("layers", [20, 80])
def test_pool_reaches_ideal_height_at_depth(layers):
    params = FluidParams.paper(width=200.0, height=layers * 5.0 + 100.0,
                               pressure_solver="converged")
    fs = scenes.tank_at_rest(params, layers=layers)
    fs.step(800)
    ideal = fs.count * params.particle_area / params.width  # density ratio 1
    surface = np.percentile(fs.positions[:, 1], 99) + fs.r_l / 2
    assert surface / ideal >= 0.95, surface / ideal


def test_paper_solver_as_written_sags_at_depth():
    """The paper's 10 Jacobi sweeps from zero cannot hold a deep pool: documents why the
    converged solver exists (DESIGN.md section 4)."""
    params = FluidParams.paper(width=200.0, height=500.0)
    fs = scenes.tank_at_rest(params, layers=80)
    fs.step(400)
    ideal = fs.count * params.particle_area / params.width
    surface = np.percentile(fs.positions[:, 1], 99) + fs.r_l / 2
    assert surface / ideal < 0.8


def test_tank_at_rest_stays_at_rest():
    params = FluidParams.paper(width=200.0, height=200.0, pressure_solver="converged")
    fs = scenes.tank_at_rest(params, layers=20)
    depth = fs.count * params.particle_area / params.width
    top0 = np.percentile(fs.positions[:, 1], 99)
    fs.step(1000)
    speed = np.linalg.norm(fs.velocities, axis=1).mean()
    assert speed < 0.01 * math.sqrt(9.81 * depth), speed
    top1 = np.percentile(fs.positions[:, 1], 99)
    assert abs(top1 - top0) < params.a0


@pytest.mark.parametrize("depth", [100.0, 120.0])
def test_game_pool_at_rest_stays_at_rest_at_any_depth(depth):
    """Game preset: a pool of water 100 or 120 deep keeps its mean speed under 1 % of
    sqrt(g d) from 5 to 10 s. 120 deep, the pool's top row of pressure cells is partly filled;
    the density correction used to pull particles up into it every substep (1.06-1.27 % over
    seeds 0-2, docs/architecture.md, Cell pressure)."""
    w = World(320.0, 260.0, params=FluidParams.game(320.0, 260.0, seed=1))
    w.add_fluid_rect(0.0, 0.0, 320.0, depth)
    speeds = []
    for i in range(600):
        w.step()
        if i >= 300 and i % 10 == 0:
            speeds.append(np.linalg.norm(w.fluid.velocities, axis=1).mean())
    assert np.mean(speeds) < 0.01 * math.sqrt(900.0 * depth), np.mean(speeds)


def test_same_seed_bit_identical_different_seed_differs():
    def run(seed: int) -> str:
        fs = scenes.droplet(FluidParams.paper(width=200.0, height=200.0, seed=seed))
        fs.step(500)
        return fs.state_hash()

    a, b, c = run(7), run(7), run(8)
    assert a == b
    assert a != c


@pytest.mark.parametrize("scene", ["dam_break_paper", "mixing_converged"])
def test_parallel_kernels_match_serial(monkeypatch, scene):
    """Every stage's parallel variant gives the serial result bit for bit: the paper solver on a
    dam break, and the converged solver on two fluids with different alpha pushed apart (the
    per-material paths of gravity and of the SRD collision)."""
    from fluidworld.fluid import Material, system

    def run(threshold: int) -> str:
        monkeypatch.setattr(system, "PARALLEL_MIN_PARTICLES", threshold)
        monkeypatch.setattr(system, "PARALLEL_REPULSION_MIN_PARTICLES", threshold)
        if scene == "dam_break_paper":
            fs = scenes.dam_break(FluidParams.paper(width=200.0, height=200.0))
        else:
            mats = [Material("water", srd_alpha=2.0), Material("ink", srd_alpha=1.2,
                                                              viscosity=0.1)]
            params = FluidParams.paper(width=200.0, height=200.0, pressure_solver="converged")
            fs = system.FluidSystem(params, mats)
            fs.add_particles(scenes.mixing(params).positions[:], material=0)
            fs.mat[: fs.count // 2] = 1
            fs.material_accelerations[1] = (0.0, -20.0)
        fs.step(50)
        assert fs.count > 200
        return fs.state_hash()

    assert run(10**9) == run(0)


def test_mixing_scene_moves_ink_down_and_conserves_count():
    fs = scenes.mixing(FluidParams.paper(width=200.0, height=200.0, pressure_solver="converged"))
    ink = fs.materials == 1
    y0 = fs.positions[ink, 1].mean()
    n0 = fs.count
    fs.step(200)
    ink = fs.materials == 1
    assert fs.count == n0
    assert fs.positions[ink, 1].mean() < y0 - 5.0
    assert np.isfinite(fs.positions).all()


def test_droplet_falls_into_pool():
    fs = scenes.droplet(FluidParams.paper(width=200.0, height=200.0, pressure_solver="converged"))
    top0 = fs.positions[:, 1].max()
    fs.step(300)
    assert fs.positions[:, 1].max() < top0 - 40  # the drop has fallen into the pool
    assert _inside(fs).all()


def test_viscous_material_loses_energy_faster():
    energies = []
    for visc in (0.0, 300.0):  # kinematic viscosity, px^2 per time unit
        params = FluidParams.paper(width=200.0, height=200.0, gravity=(0.0, 0.0))
        fs = FluidSystem(params, [Material("m", viscosity=visc)])
        fs.fill_rect(20, 20, 180, 180)
        rng = np.random.default_rng(0)
        fs.velocities[:] = rng.normal(0.0, 2.0, fs.velocities.shape)
        e0 = fs.kinetic_energy()
        fs.step(50)
        energies.append(fs.kinetic_energy() / e0)
    assert energies[1] < 0.5 * energies[0], energies


@pytest.mark.parametrize("solver", ["paper", "converged"])
def test_pressure_gradient_points_down_into_a_resting_pool(solver):
    """Renderers orient droplets along it: pressure grows with depth, so the gradient points
    down, and the density of interior particles is about 1."""
    params = FluidParams.paper(width=200.0, height=200.0, pressure_solver=solver)
    fs = scenes.tank_at_rest(params, layers=20)
    fs.step(50)
    g = fs.particle_pressure_gradient()
    assert g.shape == (fs.count, 2)
    assert g[:, 1].mean() < -0.5 and abs(g[:, 0].mean()) < 0.1
    assert 0.7 < np.median(fs.particle_density()) < 1.3


def test_free_blob_keeps_its_momentum_with_the_default_solver():
    """Gravity off, a disc of water coasting through the box touches no wall: pressure is
    internal to it, so its momentum must not change (the projection's drift is removed per
    free region). The paper's solver as written stops such a blob: Eq. 7 gives the empty cells
    ahead of it velocity 0."""
    ratios = {}
    for solver in ("converged", "paper"):
        fs = FluidSystem(FluidParams.game(400.0, 400.0, gravity=(0.0, 0.0),
                                          pressure_solver=solver))
        fs.fill_circle(150.0, 200.0, 60.0, velocity=(10.0, 0.0))
        p0 = fs.momentum()
        x0 = fs.positions[:, 0].mean()
        fs.step(300)
        ratios[solver] = fs.momentum()[0] / p0[0]
        if solver == "converged":
            assert abs(fs.momentum()[1]) < 1e-6 * p0[0]
            assert fs.positions[:, 0].mean() - x0 == pytest.approx(10.0 * 5.0, rel=0.02)
    assert abs(ratios["converged"] - 1.0) < 1e-6, ratios
    assert ratios["paper"] < 0.1, ratios


def test_neighbour_lists_widen_when_a_particle_fills_them(monkeypatch):
    """Compressed fluid can have more neighbours than the lists hold: they must widen (also when
    a count lands exactly on the width), never drop a neighbour or loop."""
    fs = scenes.dam_break(FluidParams.paper(width=200.0, height=200.0, pressure_solver="none"))
    for width in (4, 5, 6, 7):
        fs._nbr = np.zeros((fs._cap, width), np.int32)
        fs.step(1)
        k = int(fs._nbr_count[: fs.count].max())
        assert fs._nbr.shape[1] > k


@pytest.mark.parametrize("solver", ["converged", "paper"])
def test_pressure_on_active_rows_matches_full_grid(monkeypatch, solver):
    """The pressure solvers work only on rows that hold something (or did a substep ago). A
    falling droplet sweeps through many rows: the run is bit-identical to one that works on every
    row, and air cells hold zero pressure and gradient throughout."""
    from fluidworld.fluid import pressure

    def run(all_rows: bool) -> tuple[str, int]:
        if all_rows:
            def every_row(spans, was_active, rows):
                rows[:] = np.arange(len(rows))
                return len(rows)
            monkeypatch.setattr(pressure, "active_rows", every_row)
        else:
            monkeypatch.undo()
        fs = scenes.droplet(FluidParams.game(400.0, 400.0, pressure_solver=solver))
        most = 0
        for _ in range(40):
            fs.step(1)
            air = fs.cell_count < pressure.EMPTY_COUNT
            assert not fs.cell_pressure[air].any()
            assert not fs.cell_grad[air].any()
            most = max(most, len(fs._rows_was_active) - int((~fs._rows_was_active).sum()))
        return fs.state_hash(), most

    full, _ = run(True)
    restricted, busy_rows = run(False)
    assert restricted == full
    assert busy_rows < FluidParams.game(400.0, 400.0).grid_shape[0]  # rows were skipped


def test_start_positions_are_kept_by_the_sort_and_forgotten_when_particles_change():
    """With ``keep_start_positions`` the bin stage's sort leaves a copy of the sorted positions
    (containment's "where the substep began"); adding or removing particles invalidates it."""
    fs = scenes.dam_break(FluidParams.paper(width=200.0, height=200.0))
    assert fs.start_positions is None  # off by default
    fs.bin_particles()
    assert fs.start_positions is None
    fs.keep_start_positions = True
    fs.step(2)
    fs.bin_particles()
    np.testing.assert_array_equal(fs.start_positions, fs.positions)
    start = fs.start_positions.copy()
    fs.repulse(fs.params.h)  # the stages move the particles, the kept copy stays
    assert not np.array_equal(fs.positions, start)
    np.testing.assert_array_equal(fs.start_positions, start)
    fs.add_particles([[100.0, 150.0]])
    assert fs.start_positions is None
    fs.mark_start_positions()
    np.testing.assert_array_equal(fs.start_positions, fs.positions)
    fs.remove_particles([0])
    assert fs.start_positions is None
