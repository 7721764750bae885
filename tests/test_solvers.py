"""The solver interface: World and FluidSystem run whichever solver they hold, by named and
timed stages; SRD is one implementation, switching keeps the particles."""

from __future__ import annotations

import math

import numpy as np
import pymunk
import pytest

from fluidworld import World
from fluidworld.fidelity.walls import deck_overlap, floor_overlap, shelf_overlap
from fluidworld.fluid import FluidParams, FluidSystem
from fluidworld.fluid.solver import SHARED_STAGES, Solver, substep_with
from fluidworld.fluid.solvers import SOLVER_NAMES, make_solver
from fluidworld.fluid.srd_solver import SRD_STAGES, SRDSolver
from fluidworld.world import STAGES


class Frozen:
    """A solver that only keeps the particles in the box (records the calls it gets)."""

    name = "frozen"
    stages = ("hold", "advect")

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.fluid = None

    def attach(self, fluid):  # type: ignore[no-untyped-def]
        self.fluid = fluid

    def run_stage(self, stage, h):  # type: ignore[no-untyped-def]
        self.calls.append(stage)
        self.fluid.vel[: self.fluid.count] = 0.0


def test_srd_is_the_default_and_its_stages_are_the_worlds() -> None:
    w = World(200, 120)
    assert w.solver == "srd" and isinstance(w.fluid.solver, SRDSolver)
    assert w.stages == STAGES and w.fluid.stages == SHARED_STAGES + SRD_STAGES
    assert isinstance(SRDSolver(), Solver) and "srd" in SOLVER_NAMES


def test_a_solver_object_runs_its_stages_timed_and_keeps_the_particles() -> None:
    w = World(200, 120)
    n = w.add_fluid_rect(0, 0, 200, 40)
    frozen = Frozen()
    w.set_solver(frozen)
    before = w.fluid.positions.copy()
    w.step()
    assert frozen.calls == ["hold", "advect"] * w.fluid.params.substeps
    assert w.fluid.count == n and list(w.profile) == list(w.stages)
    assert set(w.profile) >= {"hold", "advect", "sync_bodies", "exchange"}
    # this solver never moves a particle (the sort only reorders them)
    key = lambda a: a[np.lexsort(a.T)]  # noqa: E731
    assert (key(w.fluid.positions) == key(before)).all()
    w.set_solver("srd")
    w.step()
    assert w.solver == "srd" and list(w.profile) == list(STAGES)


def test_fluid_only_driver_matches_the_fluid_step() -> None:
    a = FluidSystem(FluidParams.game(200, 120))
    b = FluidSystem(FluidParams.game(200, 120))
    for fs in (a, b):
        fs.fill_rect(0, 0, 100, 60)
    a.step(5)
    for _ in range(5 * b.params.substeps):
        substep_with(b, b.solver, b.params.h)
    assert a.state_hash() == b.state_hash()


def test_bad_solvers_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="solver must be one of"):
        World(200, 120, solver="lbm")
    with pytest.raises(TypeError, match="solver must be a name"):
        make_solver(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="solver must implement"):
        FluidSystem(FluidParams.game(200, 120)).set_solver(object())  # type: ignore[arg-type]


def test_a_level_names_its_solver() -> None:
    from fluidworld.levels import Level, LevelSession

    class Blob(Level):
        width, height = 200.0, 120.0
        solver = "ddr"

        def build(self, world: World) -> None:
            world.add_fluid_rect(0, 0, 80, 60)

    s = LevelSession(Blob)
    assert s.error is None and s.world.solver == "ddr"
    s.step()
    assert "ddr_relax" in s.world.profile


@pytest.mark.parametrize("solver", SOLVER_NAMES)
def test_the_materials_viscosity_acts_honey_pours_slower_than_water(solver: str) -> None:
    """Every solver runs the materials' ``viscosity`` (``ddr`` and ``constraint`` as their own
    ``viscosity`` stage): a honey column's front after 2 s is at most 0.7x water's (measured
    srd 0.37, ddr 0.48, constraint 0.41; ddr and constraint 1.0 without the stage). The box is
    1,600 wide: in one 800 wide every water front ran into the far wall."""
    fronts = {}
    for mat in ("water", "honey"):
        w = World(1600.0, 300.0, params=FluidParams.game(1600.0, 300.0), solver=solver)
        w.add_fluid_rect(0.0, 0.0, 100.0, 150.0, material=mat)
        for _ in range(120):
            w.step()
        fronts[mat] = float(np.percentile(w.fluid.positions[:, 0], 99))
        assert "viscosity" in w.profile
    assert fronts["honey"] <= 0.7 * fronts["water"], fronts


@pytest.mark.parametrize("solver", SOLVER_NAMES)
def test_a_pool_at_rest_stays_at_rest_in_small_steps(solver: str) -> None:
    """``world.step(dt)`` with a dt far below the preset's: ``ddr`` and the constraint solver
    moved their particles by a fixed share of a density error per substep, a velocity of that
    share / h: one step of 1e-4 threw a settled pool's fastest particle to 3,398 (``ddr``) and
    405 units/s (constraint), and ``ddr``'s surface to the ceiling. Their per-substep
    corrections are now scaled to the preset's substep."""
    w = World(200, 150, solver=solver)
    w.add_fluid_rect(0, 0, 200, 50)
    for _ in range(120):
        w.step()
    settled = np.linalg.norm(w.fluid.velocities, axis=1).max()
    top = w.fluid.positions[:, 1].max()
    for _ in range(30):
        w.step(1e-4)
    assert np.linalg.norm(w.fluid.velocities, axis=1).max() < settled + 30.0
    for _ in range(30):
        w.step()
    assert w.fluid.positions[:, 1].max() < top + 10.0 and w.check().ok


@pytest.mark.parametrize("solver", ["ddr", "constraint"])
def test_a_jet_packed_denser_than_the_fluid_does_not_spray(solver: str) -> None:
    """1,200 particles/s at 300 units/s from a nozzle one spacing wide: packed 16x denser than
    the fluid at rest (~72/s fill that width at that speed). ``ddr`` and the constraint solver
    sprayed it at the speed cap (4,800 units/s); their emitters now spread such a jet to twice
    the rest density (``emit_packing``), and it plunges into the pool at the speed it fell at
    (~550 units/s)."""
    w = World(400, 300, solver=solver)
    w.add_fluid_rect(0, 0, 400, 100)
    w.add_emitter((200, 250), (0, -1), 300.0, 1200.0)
    fastest = 0.0
    for _ in range(150):
        w.step()
        fastest = max(fastest, float(np.linalg.norm(w.fluid.velocities, axis=1).max()))
    assert fastest < 1200.0, fastest
    assert w.check().ok


@pytest.mark.parametrize(("solver", "spread"), [("srd", 1.0), ("ddr", 1200 * 20 / (300 * 2))])
def test_an_emitter_spreads_its_jet_as_wide_as_the_solver_needs(solver: str,
                                                                spread: float) -> None:
    """SRD, which compresses, keeps the nozzle's width (one spacing, 4.8); ``ddr`` spreads a
    1,200/s jet at 300 units/s to 40 (twice the rest density: rate x particle area / (2 x
    speed))."""
    w = World(400, 300, solver=solver)
    w.add_emitter((200, 250), (0, -1), 300.0, 1200.0)
    w.step()
    x = w.fluid.positions[:, 0] - 200.0
    width = w.fluid.r_l if solver == "srd" else spread
    assert w.fluid.count == 20
    assert np.abs(x).max() <= 0.5 * width + 1e-9
    assert np.abs(x).max() > 0.4 * width


@pytest.mark.parametrize("solver", SOLVER_NAMES)
def test_a_compact_heavy_box_sinks_to_the_floor(solver: str) -> None:
    """A 40 x 40 box of 1.3 let down onto a settled pool 100 deep reaches the floor with every
    solver (measured: srd and constraint within 4 s, ddr 6 s). Wide, flat bodies and balls stall
    higher with ``ddr`` (a 72 x 24 box 64 above the floor, a ball of radius 20 28 above) and the
    constraint solver leaves a layer or two under them (12 and 6): README, Known limits."""
    w = World(320.0, 240.0, solver=solver)
    w.add_fluid_rect(0.0, 0.0, 320.0, 100.0)
    for _ in range(60):
        w.step()
    box = w.add_box((160.0, 140.0), (40.0, 40.0), density=1.3)
    for _ in range(480):
        w.step()
    assert box.shape.cache_bb().bottom < 5.0
    assert w.check().ok


@pytest.mark.parametrize("solver", SOLVER_NAMES)
def test_a_heavy_box_on_the_floor_under_water_stays_out_of_it(solver: str) -> None:
    """A 40 x 40 box of 3x water's density lies on the floor under 100 units of water. With
    ``ddr`` and the constraint solver the water's load on its top comes through the contacts,
    and pushed into the floor before pymunk's step the box sank 1.1 / 0.9 units into it
    (``Coupler.defer_into_contacts`` now gives that push to pymunk as a force, which its
    contact then carries); measured lowest bottom over seconds 5-10: srd -0.03, ddr -0.10,
    constraint -0.10 (on a dry floor -0.1, pymunk's slop).
    The box's ``fluid_force`` still reports that push, the water's weight over it, which the
    floor now carries (measured, mean over seconds 5-10: ddr -2.85e6, constraint -2.09e6
    against 900 x 60 x 40 = 2.16e6; SRD's coupler gives bodies Archimedes' buoyancy
    instead: +1.16e6)."""
    lowest, force = floor_overlap(solver, 3.0, 10.0)
    assert -0.25 < lowest < 1.0, lowest
    if solver != "srd":
        assert force < -0.7 * 900.0 * 60.0 * 40.0, force


@pytest.mark.parametrize("solver", SOLVER_NAMES)
def test_a_floating_box_under_a_static_shelf_stays_out_of_it(solver: str) -> None:
    """A 40 x 30 box of 0.5 floats up under a static slab and tilts a corner into it. With
    ``ddr`` and the constraint solver the fluid's push up went into the velocity before
    pymunk's step and drove the corner 8.8 / 7.3 units into the slab (SRD 1.6);
    ``defer_into_contacts`` gives pymunk that push as a force and the fluid's torque as a
    torque. Measured, deepest over seconds 3-6: srd 0.26, ddr 0.18, constraint 0.10."""
    assert shelf_overlap(solver, 6.0) < 1.0


@pytest.mark.parametrize("solver", SOLVER_NAMES)
def test_a_crate_on_a_floating_raft_stays_on_its_deck(solver: str) -> None:
    """A crate of water's density on a raft of 0.5: the raft's buoyancy, written into its
    velocity before pymunk's step, moved it up into the crate before the contact was solved
    (2.3 units deep with every solver). Given to pymunk as a force, it is carried by the
    contact, friction included: measured 0.08 / 0.10 / 0.07 (srd / ddr / constraint; a crate
    on a dry floor: 0.1, pymunk's slop)."""
    assert deck_overlap(solver, 6.0) < 0.3


@pytest.mark.parametrize("solver", SOLVER_NAMES)
def test_a_body_that_does_not_turn_rests_on_the_floor_under_water(solver: str) -> None:
    """A body with an infinite moment (pymunk's way to keep it upright) lying on the floor
    under water: the fluid's torque on it must not become a NaN torque (0 x inf) when it is
    handed to pymunk with the push into the floor."""
    w = World(320.0, 240.0, solver=solver)
    w.add_fluid_rect(0.0, 0.0, 320.0, 100.0)
    body = pymunk.Body(40.0 * 40.0 * 3.0, math.inf)
    body.position = (160.0, 25.0)
    shape = pymunk.Poly.create_box(body, (40.0, 40.0))
    w.space.add(body, shape)
    w.attach(body)
    for _ in range(120):
        w.step()
    assert w.check().ok and math.isfinite(body.angular_velocity) and body.angle == 0.0
    assert -0.25 < shape.cache_bb().bottom < 10.0
