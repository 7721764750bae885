"""Double density relaxation (``solver="ddr"``): the generic invariants (rest, escapes, NaN,
determinism, counts with emitters and drains, any thread count), Archimedes through the
contacts, the heavier fluid below, surface tension that rounds a blob (SRD has none), momentum
of the viscosity impulses, the kernel variant and the anti-stick walls."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_placed import fastest_over

from fluidworld import World
from fluidworld.fidelity import buoyancy as B
from fluidworld.fidelity.tension import circularity
from fluidworld.fluid import WATER, FluidParams, FluidSystem, Material
from fluidworld.fluid import ddr as K
from fluidworld.fluid.ddr_solver import DDRParams, DDRSolver


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
    # volume held within ~15 % (a compressible solver; measured 112.5 with 4 passes at
    # stiffness 0.16/0.8: the near pressure's push expands the top rows)
    assert 85.0 < top < 115.0
    assert set(w.profile) >= {"ddr_viscosity", "ddr_predict", "ddr_relax", "advect"}


def test_the_pool_stands_as_high_whatever_the_substep_count() -> None:
    """The stiffnesses are per half frame, not per substep (``relax_schedule``): measured, a
    pool filled 100 deep stands at 112.2 / 112.4 / 111.8 after 3 s with 1 / 2 / 3 substeps
    (per world substep it stood at 94.6 / 112.4 / 119.7, and bodies of 0.8 floated at 0.72
    with one substep)."""
    tops = []
    for substeps in (1, 2, 3):
        w = World(320, 200, params=FluidParams.game(320, 200, substeps=substeps), solver="ddr")
        n = w.add_fluid_rect(0, 0, 320, 100)
        for _ in range(180):
            w.step()
        assert w.check().ok and w.fluid.count == n
        tops.append(float(np.percentile(w.fluid.positions[:, 1], 99)))
    assert max(tops) - min(tops) < 2.0, tops


def test_longer_substeps_run_more_passes_and_no_pass_is_stiffer() -> None:
    from fluidworld.fluid.ddr_solver import relax_schedule

    assert relax_schedule(1 / 60, 2, 4) == (1 / 120, 4)
    assert relax_schedule(1 / 60, 1, 4) == (1 / 120, 16)
    assert relax_schedule(1 / 60, 3, 4) == (1 / 120, 4)
    assert relax_schedule(0.1, 1, 3) == (0.05, 12)
    # a density contrast beyond CONTRAST_PER_PASSES (8) runs more passes, in proportion
    assert relax_schedule(1 / 60, 2, 4, contrast=8.0) == (1 / 120, 4)
    assert relax_schedule(1 / 60, 2, 4, contrast=50.0) == (1 / 120, 25)
    assert relax_schedule(1 / 60, 1, 4, contrast=16.0) == (1 / 120, 32)
    assert relax_schedule(1 / 60, 2, 4, contrast=1000.0) == (1 / 120, 64)  # MAX_PASSES
    # so does a load beyond WEIGHT_PER_PASSES (gravity 900 times 400 units of fluid)
    assert relax_schedule(1 / 60, 2, 4, weight=900.0 * 400.0) == (1 / 120, 4)
    assert relax_schedule(1 / 60, 2, 4, weight=900.0 * 600.0) == (1 / 120, 6)
    assert relax_schedule(1 / 60, 2, 4, contrast=50.0, weight=900.0 * 600.0) == (1 / 120, 25)


def test_the_column_height_is_the_depth_of_the_most_loaded_column() -> None:
    heavy = Material("heavy", density=2.0, mix_group="heavy")
    fs = FluidSystem(FluidParams.game(300, 400), materials=(WATER, heavy))
    fs.fill_rect(0, 0, 300, 100)
    fs.fill_rect(100, 100, 200, 150, material=1)  # 50 of heavy: 100 of water's weight
    area = fs.params.a0 ** 2 / fs.params.gamma
    mu = np.array([1.0, 2.0])
    down = K.column_height(fs.pos, fs.mat, mu, fs.count, 0.0, -900.0, 4 * fs.r_l, area, np.zeros(0))
    assert 190.0 < down < 210.0, down
    # sideways gravity: the columns run along x, 300 of fluid in the rows under 100
    side = K.column_height(fs.pos, fs.mat, mu, fs.count, 900.0, 0.0, 4 * fs.r_l, area, np.zeros(0))
    assert 280.0 < side < 340.0, side  # rows 4.16 apart in bins 19.2 wide: up to 5 rows
    assert K.column_height(fs.pos, fs.mat, mu, fs.count, 0.0, 0.0, 4 * fs.r_l, area,
                           np.zeros(0)) == 0.0


def test_materials_too_far_apart_in_density_are_refused_and_the_solver_kept() -> None:
    """1,000x apart, 64 passes a substep still blew the fluid up (speed cap) at ~1.5 s a
    step: ``ddr`` refuses a table beyond 128x, naming the pair, and a refused switch leaves
    the world as it was."""
    air = Material("air", density=0.001, mix_group="air")
    with pytest.raises(ValueError, match=r"128x.*'water'.*'air'"):
        World(200, 150, solver="ddr", materials=(WATER, air))
    w = World(200, 150, materials=(WATER, air))
    n = w.add_fluid_rect(0, 0, 200, 40)
    masses = w.fluid._mass.copy()
    with pytest.raises(ValueError, match="use solver='srd' or 'constraint'"):
        w.set_solver("ddr")
    assert w.solver == "srd" and w.fluid.rest_fill == 1.0
    assert (w.fluid._mass == masses).all()  # the particles weigh as before
    w.step()
    assert w.check().ok and w.fluid.count == n
    World(200, 150, solver="ddr", materials=(WATER, Material("lead", density=100.0)))


def test_a_very_heavy_fluid_sinks_through_water_without_throwing_it() -> None:
    """A fluid 50x as dense as water moved a water particle beside it 50x as far per pass:
    with 4 passes the water was thrown to the ceiling (fastest 4,658 units/s); with the passes
    grown by the contrast, measured fastest 868, the water's top at 62."""
    heavy = Material("lead", density=50.0, mix_group="lead")
    w = World(200, 150, solver="ddr", materials=(WATER, heavy))
    n = w.add_fluid_rect(0, 0, 200, 40, material="water")
    n += w.add_fluid_rect(70, 40, 130, 70, material="lead")
    fastest = 0.0
    for _ in range(180):
        w.step()
        fastest = max(fastest, float(np.linalg.norm(w.fluid.velocities, axis=1).max()))
    y = w.fluid.positions[:, 1]
    lead = w.fluid.materials == w.material_id("lead")
    assert w.check().ok and w.fluid.count == n
    assert fastest < 2000.0, fastest
    assert y[~lead].max() < 100.0
    assert np.median(y[lead]) < np.median(y[~lead])


def test_same_seed_same_state() -> None:
    def run() -> str:
        w = World(240, 160, solver="ddr")
        w.add_fluid_rect(0, 0, 100, 120)
        w.add_box((180, 60), (20, 20), density=0.5)
        for _ in range(60):
            w.step()
        return w.state_hash()

    assert run() == run()


def test_the_heavier_fluid_ends_below_without_blowing_up() -> None:
    heavy = Material("heavy", density=2.0, viscosity=0.0, mix_group="heavy")
    fs = FluidSystem(FluidParams.game(240, 240), materials=(WATER, heavy))
    fs.set_solver(DDRSolver())
    fs.fill_rect(0, 0, 240, 60, material=0)
    fs.fill_rect(0, 60, 240, 120, material=1)  # heavy on top
    fastest = 0.0
    for _ in range(20):
        fs.step(60)
        fastest = max(fastest, float(np.linalg.norm(fs.velocities, axis=1).max()))
    # measured: fastest 247 (the overturn, 0.75 sqrt(g d)); one Jacobi pass a substep: 23,000
    assert fastest < 10.0 * math.sqrt(900.0 * 120.0), fastest
    y, m = fs.positions[:, 1], fs.materials
    # below the median of all particles (under the interface; issue 14 asks for 0.9): measured
    # 0.947 after 10-20 s (one pass: 0.75 at 10 s, then mixed to 0.48)
    assert (y[m == 1] < np.median(y[m == 0])).mean() >= 0.9
    assert (y[m == 1] < np.median(y)).mean() >= 0.9


def _rest_speed(fs: FluidSystem, seconds: int) -> float:
    """Mean particle speed over the last half second of ``seconds`` (every 5th step: the
    pool's slow breathing mode averaged over its phase)."""
    fs.step(60 * seconds - 30)
    speeds = []
    for _ in range(6):
        fs.step(5)
        speeds.append(float(np.linalg.norm(fs.velocities, axis=1).mean()))
    return float(np.mean(speeds))


def test_a_deep_water_pool_comes_to_rest() -> None:
    # one Jacobi pass a substep blew this up (mean speed 300-1500): the bottom's compression
    # took the pass's displacement Jacobian past -4/3 (the predictor's stability limit)
    w = World(320, 400, solver="ddr")
    w.add_fluid_rect(0, 0, 320, 300)
    speed = _rest_speed(w.fluid, 8)
    assert speed < 0.01 * math.sqrt(900.0 * 300.0), speed
    assert w.check().ok
    top = np.percentile(w.fluid.positions[:, 1], 99)
    assert 270.0 < top < 330.0, top


def test_a_pool_600_deep_does_not_blow_up() -> None:
    """The bottom of a tall column is compressed further and a pass's checkerboard mode grows
    with the compression: with 4 passes this pool blew up (fastest 1,844 units/s after 1.5 s,
    3,608 after 3 s); the passes grow with the load (``WEIGHT_PER_PASSES``), measured fastest
    ~220 (the fresh fill falling as it compresses)."""
    w = World(60, 780, solver="ddr")
    n = w.add_fluid_rect(0, 0, 60, 600)
    fastest = fastest_over(w, 240)
    assert w.check().ok and w.fluid.count == n
    assert fastest < 600.0, fastest


def test_a_fine_fluid_weighs_its_column_in_its_own_spacings() -> None:
    """At ``gamma`` 65 (spacing 1.33 against 4.81) a pool 50 deep compresses as one 650 deep
    does at the default: with the column's weight in world units it ran 4 passes and blew up
    (fastest 1,121 units/s in 40 steps, the ceiling reached at ``gamma`` 75); measured 131."""
    w = World(200, 120, solver="ddr", params=FluidParams.game(200, 120, gamma=65))
    n = w.add_fluid_rect(0, 0, 200, 50)
    fastest = fastest_over(w, 40)
    assert w.check().ok and w.fluid.count == n
    assert fastest < 400.0 and float(np.percentile(w.fluid.positions[:, 1], 99)) < 60.0


def test_a_deep_heavy_pool_comes_to_rest() -> None:
    heavy = Material("heavy", density=2.0, viscosity=0.0)
    fs = FluidSystem(FluidParams.game(240, 240), materials=(heavy,))
    fs.set_solver(DDRSolver())
    fs.fill_rect(0, 0, 240, 150)
    speed = _rest_speed(fs, 7)
    assert speed < 0.01 * math.sqrt(900.0 * 150.0), speed
    top = np.percentile(fs.positions[:, 1], 99)
    assert 135.0 < top < 165.0, top


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
    K.viscosity_impulses((fs.pos, fs.vel, fs.mat, fs._mass, np.ones(2), fs.count),
                         (fs._nb_start, fs.nb_nx, fs.nb_ny, 1.0 / fs.nb_h),
                         (2.2 * fs.r_l, 50.0, 0.05, 1 / 120), (np.zeros(200), np.zeros((200, 2))))
    assert np.allclose(mom(), before, rtol=0, atol=1e-9 * np.abs(before).max())
    assert not np.allclose(fs.velocities, 0)


@pytest.mark.parametrize("kw, match", [
    ({"radius": 1.0}, r"radius must be in \[1.5, 4\]"),
    ({"stiffness": 0.0}, r"stiffness must be in \(0, 1\]"),
    ({"near_stiffness": -1}, r"near_stiffness must be in \[0, 2\]"),
    ({"viscosity_linear": -1}, "viscosity_linear must be >= 0"),
    ({"kernel": "quintic"}, r"kernel must be one of \('quadratic', 'cubic'\)"),
    ({"anti_stick": 0.6}, r"anti_stick must be in \[0, 0.5\]"),
])
def test_bad_params_are_refused(kw: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        DDRParams(**kw)


def test_bodies_couple_without_nan_or_escapes() -> None:
    w = World(320, 200, solver="ddr")
    w.add_fluid_rect(0, 0, 320, 80)
    w.add_box((160, 110), (40, 30), density=0.5)
    anvil = w.add_ball((60, 150), 10, density=3.0)
    for _ in range(240):
        w.step()
    c = w.check()
    assert c.nan == 0 and c.outside == 0 and c.bodies_nan == 0 and c.bodies_outside == 0
    assert anvil.body.position.y < 40  # the heavy ball went down through the fluid


def floating(kind: str, density: float, steps: int = 420) -> tuple[float, World]:
    """Submerged fraction of a body let down onto a 100-deep ddr pool that has settled for a
    second (last 2 s averaged). (The ddr fluid, filled at the lattice's density, rises to ~113
    as it settles; a body put in right after the fill rides that rise.)"""
    w = B.pool(320.0, 240.0, solver="ddr")
    for _ in range(60):
        w.step()
    e = B.add_body(w, kind, 160.0, B.surface_beside(w, 100.0, 220.0) + 1.0, density)
    return B.mean_fraction(w, e, steps, steps - 120), w


@pytest.mark.parametrize("kind", ["box", "ball"])
@pytest.mark.parametrize("density", [0.4, 0.6, 0.8])
def test_archimedes_through_the_contacts(kind: str, density: float) -> None:
    # measured -0.013 .. +0.042; before the particles weighed by the fluid's rest density and
    # bodies were wetted, -0.032 .. +0.088 (0.8 box and ball floated deep)
    fraction, w = floating(kind, density)
    assert abs(fraction - density) < 0.05, fraction
    assert w.check().ok


@pytest.mark.parametrize(("shape", "ratio"), [("ball 32", 0.8), ("ball 15", 0.4),
                                              ("box 40", 0.8)])
def test_archimedes_whatever_the_size(shape: str, ratio: float) -> None:
    """Bodies bigger and smaller than the usual ones, in a pool 120 deep. Before the particles
    weighed by the fluid's rest density and bodies were wetted: +0.097, -0.082, +0.079 (large
    bodies floated deep in a fluid ~0.9 as dense as its material; the surface tension held
    small light ones up); measured +0.026, +0.014, +0.004."""
    w = World(400.0, 220.0, solver="ddr")
    w.add_fluid_rect(0.0, 0.0, 400.0, 120.0)
    kind, size = shape.split()
    a = float(size)
    if kind == "box":
        e = w.add_box((170.0, 122.0 + a / 2), (a, a), density=ratio)
    else:
        e = w.add_ball((170.0, 122.0 + a), a, density=ratio)
    f = B.mean_fraction(w, e, 540, 360)
    assert abs(f - ratio) < 0.05, f


@pytest.mark.xfail(strict=True, reason="the fluid jams in its lattice, with a yield that grows "
                   "with depth as a granular bed's does: this 1.3 box's top stalls at 91-93 "
                   "after 6 s (50 needed); with no viscosity at all at 60; a ball of radius 20 "
                   "stops where (1.3 - 1) R is ~0.14 of its depth (docs/architecture.md, DDR)")
def test_a_heavy_box_sinks() -> None:
    w = B.pool(320.0, 240.0)
    w.set_solver("ddr")
    e = B.add_body(w, "box", 160.0, B.DEPTH + 1.0, 1.3)
    for _ in range(360):
        w.step()
    assert e.body.position.y + 0.5 * B.BOX[1] < 0.5 * B.DEPTH  # top well under the surface


def test_count_is_exact_with_an_emitter_and_a_drain() -> None:
    w = World(240, 160, solver="ddr")
    n0 = w.add_fluid_rect(0, 0, 240, 40)
    w.add_emitter((40, 120), (1, 0), 100.0, rate=120.0)
    drain = w.add_drain((200, 0, 240, 30))
    for _ in range(120):
        w.step()
    assert w.fluid.count == n0 + 240 - drain.removed
    assert drain.removed > 0 and w.check().ok


def test_parallel_and_serial_relaxation_are_bit_identical() -> None:
    fs = FluidSystem(FluidParams.game(260, 260))
    fs.set_solver(DDRSolver())
    fs.fill_rect(0, 0, 260, 200)
    fs.step(5)
    s = fs.solver
    assert isinstance(s, DDRSolver) and fs.count > 4 * K.CHUNK
    fs.bin_particles()
    n = fs.count
    out = []
    for par in (False, True):
        pos = fs.pos.copy()
        imp = np.zeros_like(fs.solid_impulse)
        K.relax_positions((pos, fs.vel, fs.mat, fs._mass, s._mu, n),
                          (fs._nb_start, fs.nb_nx, fs.nb_ny, 1.0 / fs.nb_h, np.arange(n)),
                          s._radius,
                          (fs.solid_pos, fs._s_start, fs._s_order, imp, np.zeros(len(imp), bool),
                           fs.solid_wet),
                          0, (s._radius, False, s._rho0, 0.04 * fs.r_l * 120**2,
                              0.2 * fs.r_l * 120**2, 1 / 120, 1.0, 0.25),
                          (np.zeros(n), np.zeros(n), np.zeros((n, 2))), par)
        out.append((pos, imp))
    assert np.array_equal(out[0][0], out[1][0]) and np.array_equal(out[0][1], out[1][1])


def test_relaxation_on_a_fresh_binning_matches_the_wide_search() -> None:
    """The relaxation searches the predicted positions binned again (and bins again between
    passes once they moved past ``REBIN_REACH``), not the substep's sort with a search widened
    by the farthest move: the same displacements (a pair seen from one side only would not
    be). (The wide search cost every particle as much as the fastest one's move: one particle
    at 3,000 units/s in a pool of 10k made a step 2.4x as slow.)"""
    fs = FluidSystem(FluidParams.game(260, 260))
    fs.set_solver(DDRSolver())
    fs.fill_rect(0, 0, 260, 200)
    fs.step(3)
    s = fs.solver
    assert isinstance(s, DDRSolver)
    fs.bin_particles()
    n = fs.count
    moved = fs.pos.copy()
    moved[:n] += np.random.default_rng(0).uniform(-2.0, 2.0, (n, 2))  # a prediction's moves
    wide = float(np.abs(moved[:n] - fs.pos[:n]).max())
    consts = (s._radius, False, s._rho0, 0.04 * fs.r_l * 120**2, 0.2 * fs.r_l * 120**2,
              1 / 120, 1.0, 0.25)
    solids = (fs.solid_pos, fs._s_start, fs._s_order, np.zeros_like(fs.solid_impulse),
              np.zeros(len(fs.solid_pos), bool), fs.solid_wet)
    out = []
    rebins = []
    for fresh in (False, True):
        pos = moved.copy()
        fluid = (pos, fs.vel, fs.mat, fs._mass, s._mu, n)
        work = (np.zeros(n), np.zeros(n), np.zeros((n, 2)))
        if fresh:
            fs.pos, kept = pos, fs.pos  # the solver bins the store's positions

            def rebin() -> tuple:
                rebins.append(1)
                return s._predicted_grid(n)

            K.relax_positions(fluid, s._predicted_grid(n), s._radius, solids, 0, consts, work,
                              passes=6, rebin=rebin)
            fs.pos = kept
            assert rebins  # the passes moved particles past the margin
        else:
            grid = (fs._nb_start, fs.nb_nx, fs.nb_ny, 1.0 / fs.nb_h, np.arange(n))
            K.relax_positions(fluid, grid, s._radius + wide + 2.0, solids, 0, consts, work,
                              passes=6)
        out.append(pos[:n].copy())
    assert np.allclose(out[0], out[1], rtol=0.0, atol=1e-9)
    assert np.abs(out[1] - moved[:n]).max() > 0.1  # (the passes did move the fluid)


def test_madams_cubic_kernel_runs_a_tank() -> None:
    w = World(240, 160, solver=DDRSolver(DDRParams(kernel="cubic")))
    n = w.add_fluid_rect(0, 0, 240, 60)
    for _ in range(120):
        w.step()
    assert w.check().ok and w.fluid.count == n
    # softer than the quadratic kernel at the same knobs (measured 3 % of sqrt(g d) at rest)
    speed = np.linalg.norm(w.fluid.velocities, axis=1).mean()
    assert speed < 0.06 * math.sqrt(900.0 * 60.0), speed


def test_anti_stick_releases_what_the_box_held() -> None:
    pos = np.array([[0.0, 50.0], [100.0, 240.0], [50.0, 50.0]])
    vel = np.array([[-30.0, 0.0], [0.0, 5.0], [0.0, 0.0]])
    released = K.anti_stick(pos, vel, 3, 0.0, 100.0, 0.0, 240.0, 1e-3, 20.0)
    assert released == 2
    assert vel[0, 0] == 20.0 and vel[1, 0] == -20.0 and vel[1, 1] == -20.0
    assert (vel[2] == 0.0).all()  # inside: untouched


def test_particles_weigh_by_the_density_the_fluid_rests_at() -> None:
    """ddr's fluid rests at ``rest_fill`` of the lattice's number density: its particles weigh
    that much more, so that its mass density is its material's; back to SRD, the lattice's."""
    w = World(240, 160, solver="ddr")
    w.add_fluid_rect(0, 0, 240, 60)
    area = w.fluid.params.particle_area
    assert w.fluid.rest_fill == DDRParams().rest_fill == 0.9
    assert np.allclose(w.fluid._mass[0], WATER.density * area / 0.9)
    mass = w.fluid._mass  # the kernels hold this array: changed in place
    w.set_solver("srd")
    assert w.fluid._mass is mass and np.allclose(mass[0], WATER.density * area)
    for bad in (0.0, -1.0, 3.0, float("nan")):
        with pytest.raises(ValueError, match="fill"):
            w.fluid.set_rest_fill(bad)
    for name, bad in (("wetting", 1.5), ("wetting", -0.1), ("rest_fill", 0.5),
                      ("rest_fill", 1.2)):
        with pytest.raises(ValueError, match=name):
            DDRParams(**{name: bad})


def test_the_fluid_wets_moving_bodies_not_walls() -> None:
    w = World(240, 160, solver="ddr")
    w.add_fluid_rect(0, 0, 240, 60)
    ball = w.add_ball((120, 70), 12, density=0.5)
    w.add_static_segment((20, 40), (80, 40), radius=2)
    w.step()
    f = w.fluid
    mine = f.solid_wet[w.coupler._n_wall:]
    assert mine.any() and not f.solid_wet[:w.coupler._n_wall].any()
    owners = f.solid_owner[w.coupler._n_wall:]
    k = w.coupler.body_index(ball.body)
    # the ledge's solids are there, and not wetted
    assert (owners != k).any() and mine[owners == k].all() and not mine[owners != k].any()
