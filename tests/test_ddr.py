"""Double density relaxation (``solver="ddr"``): the generic invariants, the heavier fluid
below, surface tension that rounds a blob (SRD has none), momentum of the viscosity impulses."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fluidworld import World
from fluidworld.fluid import WATER, FluidParams, FluidSystem, Material
from fluidworld.fluid import ddr as K
from fluidworld.fluid.ddr_solver import DDRParams, DDRSolver


def circularity(pts: np.ndarray) -> float:
    """``4 pi A / P^2`` of the points' convex hull (1 for a disc, pi/4 for a square)."""
    ps = sorted(map(tuple, pts))

    def half(seq: list) -> list:
        h: list = []
        for p in seq:
            while len(h) >= 2 and ((h[-1][0] - h[-2][0]) * (p[1] - h[-2][1])
                                   - (h[-1][1] - h[-2][1]) * (p[0] - h[-2][0])) <= 0:
                h.pop()
            h.append(p)
        return h

    hp = np.array(half(ps)[:-1] + half(ps[::-1])[:-1])
    x, y = hp[:, 0], hp[:, 1]
    area = 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    perimeter = np.linalg.norm(hp - np.roll(hp, -1, axis=0), axis=1).sum()
    return float(4.0 * math.pi * area / perimeter**2)


def test_a_tank_at_rest_stays_at_rest_and_keeps_every_particle() -> None:
    w = World(320, 240, solver="ddr")
    n = w.add_fluid_rect(0, 0, 320, 100)
    for _ in range(300):
        w.step()
    c = w.check()
    assert c.ok and w.fluid.count == n and w.solver == "ddr"
    speed = np.linalg.norm(w.fluid.velocities, axis=1).mean()
    assert speed < 0.01 * math.sqrt(900.0 * 100.0), speed
    top = np.percentile(w.fluid.positions[:, 1], 99)
    assert 85.0 < top < 110.0  # volume held within ~10 % (a compressible solver)
    assert set(w.profile) >= {"ddr_viscosity", "ddr_predict", "ddr_relax", "advect"}


def test_same_seed_same_state() -> None:
    def run() -> str:
        w = World(240, 160, solver="ddr")
        w.add_fluid_rect(0, 0, 100, 120)
        w.add_box((180, 60), (20, 20), density=0.5)
        for _ in range(60):
            w.step()
        return w.state_hash()

    assert run() == run()


def test_the_heavier_fluid_ends_below() -> None:
    heavy = Material("heavy", density=2.0, viscosity=0.0, mix_group="heavy")
    fs = FluidSystem(FluidParams.game(240, 240), materials=(WATER, heavy))
    fs.set_solver(DDRSolver())
    fs.fill_rect(0, 0, 240, 60, material=0)
    fs.fill_rect(0, 60, 240, 120, material=1)  # heavy on top
    fs.step(600)
    y, m = fs.positions[:, 1], fs.materials
    # below the light fluid's median height: 0.98 after 10 s. Below the median of all
    # particles (the stricter reading of "under the interface") it plateaus at 0.82: a fifth
    # of the heavy particles stay mixed into the light layer (docs/architecture.md, "DDR")
    assert (y[m == 1] < np.median(y[m == 0])).mean() >= 0.9
    assert (y[m == 1] < np.median(y)).mean() >= 0.75


def test_surface_tension_rounds_a_square_blob_and_srd_does_not() -> None:
    def blob(solver: str) -> float:
        fs = FluidSystem(FluidParams.game(320, 320, gravity=(0.0, 0.0)))
        if solver == "ddr":
            fs.set_solver(DDRSolver())
        fs.fill_rect(110, 110, 210, 210)
        assert abs(circularity(fs.positions) - math.pi / 4) < 0.02
        fs.step(300)
        return circularity(fs.positions)

    assert blob("ddr") > 0.9
    assert blob("srd") < 0.88  # no cohesion: the square's corners stay or spread


def test_viscosity_impulses_conserve_momentum_between_unequal_masses() -> None:
    rng = np.random.default_rng(4)
    fs = FluidSystem(FluidParams.game(100, 100), materials=(WATER, Material("h", density=3.0)))
    fs.add_particles(rng.uniform(5, 95, (200, 2)), rng.normal(0, 50, (200, 2)), 0)
    fs.mat[:100] = 1
    fs.bin_particles()
    mom = lambda: (fs._mass[fs.materials][:, None] * fs.velocities).sum(axis=0)  # noqa: E731
    before = mom()
    K.viscosity_impulses(fs.pos, fs.vel, fs.mat, fs._mass, fs.count, fs._nb_start, fs.nb_nx,
                         fs.nb_ny, 1.0 / fs.nb_h, 3, 2.2 * fs.r_l, 50.0, 0.05, 1 / 120)
    assert np.allclose(mom(), before, rtol=0, atol=1e-9 * np.abs(before).max())
    assert not np.allclose(fs.velocities, 0)


@pytest.mark.parametrize("kw, match", [
    ({"radius": 1.0}, r"radius must be in \[1.5, 4\]"),
    ({"stiffness": 0.0}, r"stiffness must be in \(0, 1\]"),
    ({"near_stiffness": -1}, r"near_stiffness must be in \[0, 2\]"),
    ({"viscosity_linear": -1}, "viscosity_linear must be >= 0"),
])
def test_bad_params_are_refused(kw: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        DDRParams(**kw)


def test_bodies_couple_without_nan_or_escapes() -> None:
    w = World(320, 200, solver="ddr")
    w.add_fluid_rect(0, 0, 320, 80)
    crate = w.add_box((160, 110), (40, 30), density=0.5)
    anvil = w.add_ball((60, 150), 10, density=3.0)
    for _ in range(240):
        w.step()
    c = w.check()
    assert c.nan == 0 and c.outside == 0 and c.bodies_nan == 0 and c.bodies_outside == 0
    assert anvil.body.position.y < 40  # the heavy ball went down through the fluid
    # not yet Archimedes: the 0.5 box floats too low with ddr (its centre sank to ~36 in an
    # 80-deep pool, measured); the coupling's pressure push assumes SRD's cell pressure
    assert crate.body.position.y > 0
