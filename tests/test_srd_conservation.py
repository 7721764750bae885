"""Conservation laws of the SRD collision (paper Eq. 3) and of the fluid-solid momentum exchange.

* With viscosity 0, Eq. 3 rotates every relative velocity in a cell by the same angle, so each
  cell's momentum and kinetic energy are unchanged (to round-off), whatever the masses.
* With viscosity ``nu > 0`` the relative velocities are scaled by ``1 - nu``: momentum is still
  conserved per cell and the energy relative to the cell's centre of mass drops by ``(1-nu)^2``.
* The momentum :func:`accumulate_solid_impulses` hands to solids is exactly minus what the fluid
  received from solid contacts in the same repulsion pass.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fluidworld.fluid import FluidParams, FluidSystem, Material, binning, collision, repulsion
from fluidworld.fluid import reference as ref

A0 = 10.0
NX, NY = 4, 3                    # domain cells; the shifted SRD grid has (NX+1) x (NY+1)
NCX, NCY = NX + 1, NY + 1
MASS = np.array([20.0, 10.0, 46.0, 28.0, 3.5])          # five materials, different masses


def srd_run(pos, vel, mat, mass, alpha, visc, shift, signs):
    n = len(pos)
    nc = NCX * NCY
    v = vel.copy()
    collision.srd_collide((pos, v, mat, n), (mass, alpha, visc), (A0, shift[0], shift[1], NCX, NCY),
                          (signs, np.zeros(nc), np.zeros((nc, 2)), np.zeros(nc), np.zeros(nc),
                           np.zeros((nc, 2))))
    return v


def random_particles(rng, n):
    pos = rng.uniform([0.0, 0.0], [NX * A0, NY * A0], (n, 2))
    pos[:5] = [[0.0, 0.0], [NX * A0, NY * A0], [0.0, NY * A0], [-0.01, 3.0], [NX * A0 + 0.01, 7.0]]
    vel = rng.normal(0.0, 5.0, (n, 2)) + rng.normal(0.0, 5.0, 2)     # with a mean drift
    mat = rng.integers(0, len(MASS), n).astype(np.uint8)
    return pos, vel, mat


def per_cell(pos, vel, mat, mass, shift):
    """Per SRD cell: momentum (nc, 2), kinetic energy (nc,), and the cell of each particle."""
    cells = ref.srd_cells(pos, len(pos), A0, shift[0], shift[1], NCX, NCY)
    m = mass[mat]
    p = np.stack([np.bincount(cells, m * vel[:, k], NCX * NCY) for k in range(2)], -1)
    e = np.bincount(cells, 0.5 * m * (vel * vel).sum(axis=1), NCX * NCY)
    mom_scale = np.bincount(cells, m * np.hypot(vel[:, 0], vel[:, 1]), NCX * NCY)
    return p, e, mom_scale, cells


def internal_energy(vel, mat, mass, cells):
    """Kinetic energy relative to each cell's centre of mass, per cell."""
    m = mass[mat]
    mc = np.bincount(cells, m, NCX * NCY)
    u = np.stack([np.bincount(cells, m * vel[:, k], NCX * NCY) for k in range(2)], -1)
    u = u / np.where(mc > 0, mc, 1.0)[:, None]
    w = vel - u[cells]
    return np.bincount(cells, 0.5 * m * (w * w).sum(axis=1), NCX * NCY)


@pytest.mark.parametrize("seed", range(6))
def test_srd_conserves_cell_momentum_and_energy(seed):
    rng = np.random.default_rng(seed)
    pos, vel, mat = random_particles(rng, 150)
    alpha = rng.uniform(0.0, np.pi, len(MASS))
    visc = np.zeros(len(MASS))
    shift = rng.random(2) * A0
    signs = (rng.integers(0, 2, NCX * NCY) * 2 - 1).astype(np.int8)
    v = srd_run(pos, vel, mat, MASS, alpha, visc, shift, signs)
    p0, e0, scale, cells = per_cell(pos, vel, mat, MASS, shift)
    p1, e1, _, _ = per_cell(pos, v, mat, MASS, shift)
    occupied = np.bincount(cells, minlength=NCX * NCY) > 0
    assert occupied.sum() >= 15
    # several materials share cells, and the collision really changed velocities
    mats_per_cell = [len(set(mat[cells == c])) for c in np.nonzero(occupied)[0]]
    assert max(mats_per_cell) >= 4
    assert np.abs(v - vel).max() > 1.0
    assert np.all(np.abs(p1 - p0) <= 1e-9 * scale[:, None])
    assert np.all(np.abs(e1 - e0) <= 1e-9 * e0)
    # and no energy moved between cells either: the totals match too
    assert abs(e1.sum() - e0.sum()) <= 1e-9 * e0.sum()


def test_srd_one_cell_all_materials_by_hand():
    """One cell, five materials of different mass: momentum and energy to 1e-9, and with
    ``alpha = pi`` (the sign does not matter) every relative velocity is reversed."""
    rng = np.random.default_rng(42)
    n = 25
    pos = rng.uniform(11.0, 19.0, (n, 2))          # all in cell (1, 1) of the unshifted grid
    vel = rng.normal(0.0, 3.0, (n, 2))
    mat = (np.arange(n) % len(MASS)).astype(np.uint8)
    signs = np.ones(NCX * NCY, np.int8)
    signs[NCX + 1] = -1
    alpha = np.full(len(MASS), np.pi)
    v = srd_run(pos, vel, mat, MASS, alpha, np.zeros(len(MASS)), (0.0, 0.0), signs)
    m = MASS[mat]
    u = (m[:, None] * vel).sum(axis=0) / m.sum()
    np.testing.assert_allclose(v, 2 * u - vel, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose((m[:, None] * v).sum(0), (m[:, None] * vel).sum(0), rtol=1e-12)
    assert (m * (v * v).sum(1)).sum() == pytest.approx((m * (vel * vel).sum(1)).sum(), rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_srd_viscosity_conserves_momentum_and_damps_energy(seed):
    rng = np.random.default_rng(100 + seed)
    pos, vel, mat = random_particles(rng, 150)
    alpha = rng.uniform(0.0, np.pi, len(MASS))
    visc = np.array([0.0, 0.1, 0.3, 0.05, 0.9])
    shift = rng.random(2) * A0
    signs = (rng.integers(0, 2, NCX * NCY) * 2 - 1).astype(np.int8)
    v = srd_run(pos, vel, mat, MASS, alpha, visc, shift, signs)
    p0, e0, scale, cells = per_cell(pos, vel, mat, MASS, shift)
    p1, e1, _, _ = per_cell(pos, v, mat, MASS, shift)
    assert np.all(np.abs(p1 - p0) <= 1e-9 * scale[:, None])
    several = np.bincount(cells, minlength=NCX * NCY) >= 2
    assert several.sum() >= 10
    assert np.all(e1[several] < e0[several])
    assert np.all(e1 <= e0 * (1 + 1e-12))
    # exactly: the relative (internal) energy is scaled by keep^2, keep = 1 - mass-weighted nu
    m = MASS[mat]
    mc = np.bincount(cells, m, NCX * NCY)
    keep = 1.0 - np.bincount(cells, m * visc[mat], NCX * NCY) / np.where(mc > 0, mc, 1.0)
    i0 = internal_energy(vel, mat, MASS, cells)
    i1 = internal_energy(v, mat, MASS, cells)
    np.testing.assert_allclose(i1, keep**2 * i0, rtol=1e-9, atol=1e-9 * i0.max())


def test_fluid_system_collide_conserves_totals():
    """The façade's collide stage (random grid shift and signs): total momentum and energy."""
    mats = [Material("a", viscosity=0.0), Material("b", density=0.5, viscosity=0.0, srd_alpha=1.0),
            Material("c", density=2.0, viscosity=0.0, srd_alpha=2.5)]
    fs = FluidSystem(FluidParams(width=80.0, height=60.0, gravity=(0.0, 0.0), seed=3),
                     materials=mats)
    for k in range(3):
        fs.fill_rect(5.0 + 20 * k, 5.0, 25.0 + 20 * k, 50.0, material=k)
    rng = np.random.default_rng(0)
    fs.velocities[:] = rng.normal(0.0, 4.0, (fs.count, 2))
    p0, e0 = fs.momentum(), fs.kinetic_energy()
    v0 = fs.velocities.copy()
    for _ in range(5):
        fs.collide(fs.params.h)
    assert np.abs(fs.velocities - v0).max() > 1.0
    np.testing.assert_allclose(fs.momentum(), p0, rtol=0, atol=1e-9 * np.abs(v0).sum() * 20)
    assert fs.kinetic_energy() == pytest.approx(e0, rel=1e-9)


# ----------------------------------------------------------------------------- solid impulses
def contact_scene(seed, one_material=False):
    rng = np.random.default_rng(seed)
    a0, gamma = 10.0, 5.0
    width, height = 50.0, 40.0
    r_l = math.sqrt(2.0 * a0 * a0 / (gamma * math.sqrt(3.0)))
    nb_h = r_l * (1.0 + 1e-9)
    nb_nx, nb_ny = math.ceil(width / nb_h), math.ceil(height / nb_h)
    n = 250
    pos = rng.uniform([0.0, 0.0], [width, 0.7 * height], (n, 2))
    pos[:40, 1] = rng.uniform(-0.3 * r_l, 0.9 * r_l, 40)                  # on the floor
    vel = rng.normal(0.0, 4.0, (n, 2))
    mat = np.zeros(n, np.uint8) if one_material else rng.integers(0, 3, n).astype(np.uint8)
    mass = np.array([20.0, 16.0, 28.0])
    # solids: the floor and a moving ring in the fluid
    xs = np.arange(0.0, width + 1e-9, r_l / 2)
    ang = np.linspace(0.0, 2 * np.pi, 30, endpoint=False)
    ring = np.column_stack([25.0 + 7.0 * np.cos(ang), 15.0 + 7.0 * np.sin(ang)])
    s_pos = np.concatenate([np.column_stack([xs, np.zeros_like(xs)]), ring])
    s_vel = np.zeros_like(s_pos)
    s_vel[len(xs):] = [3.0, -2.0] + 1.5 * np.column_stack([-np.sin(ang), np.cos(ang)])
    # bin
    ncell = nb_nx * nb_ny
    p2, v2, m2 = np.zeros((n, 2)), np.zeros((n, 2)), np.zeros(n, np.uint8)
    start = np.zeros(ncell + 1, np.int64)
    binning.sort_particles((pos, vel, mat, n), 1.0 / nb_h, nb_nx, nb_ny, (p2, v2, m2), start,
                           np.zeros(n, np.int64), np.array([0, ncell - 1, -1]), np.zeros((0, 2)))
    s_start = np.zeros(ncell + 1, np.int64)
    s_order = np.zeros(len(s_pos), np.int64)
    binning.bin_points(s_pos, len(s_pos), 1.0 / nb_h, nb_nx, nb_ny, s_start, s_order)
    return dict(pos=p2, vel=v2, mat=m2, mass=mass, n=n, r_l=r_l, nb_h=nb_h, nb_nx=nb_nx,
                nb_ny=nb_ny, start=start, s_pos=s_pos, s_vel=s_vel, s_start=s_start,
                s_order=s_order)


def repulse(sc, dv, with_solids=True):
    n = sc["n"]
    disp, dvel, wsum = np.zeros((n, 2)), np.zeros((n, 2)), np.zeros(n)
    if with_solids:
        s_pos, s_vel, s_start, s_order = sc["s_pos"], sc["s_vel"], sc["s_start"], sc["s_order"]
    else:
        s_pos = s_vel = np.zeros((0, 2))
        s_start, s_order = np.zeros_like(sc["s_start"]), np.zeros(0, np.int64)
    repulsion.repulse_fluid(sc["pos"], sc["vel"], sc["start"], sc["nb_nx"], sc["nb_ny"], s_pos,
                            s_vel, s_start, s_order, sc["r_l"], dv, disp, dvel, wsum)
    return disp, dvel, wsum


def impulses(sc, dv, wsum):
    m = len(sc["s_pos"])
    imp, marked = np.zeros((m, 2)), np.zeros(m, bool)
    repulsion.accumulate_solid_impulses(
        sc["pos"], sc["vel"], sc["mat"], sc["mass"], sc["start"], sc["nb_nx"],
        sc["nb_ny"], sc["s_pos"], sc["s_vel"], sc["s_start"], sc["s_order"], sc["r_l"], dv, wsum,
        imp, marked)
    return imp, marked


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("dv", [0.0, 0.1, 1.0])
def test_solid_impulses_are_equal_and_opposite(seed, dv):
    sc = contact_scene(seed)
    _, dvel, wsum = repulse(sc, dv)
    _, dvel_free, wsum_free = repulse(sc, dv, with_solids=False)
    assert np.all(wsum_free == 0.0) and (wsum > 0).sum() >= 20
    imp, marked = impulses(sc, dv, wsum)
    m = sc["mass"][sc["mat"]]
    # the fluid's momentum change due to solids = the pass with solids minus the pass without
    from_solids = (m[:, None] * (dvel - dvel_free)).sum(axis=0)
    scale = np.abs(imp).sum()
    assert scale > 10.0
    assert np.all(np.abs(from_solids + imp.sum(axis=0)) <= 1e-12 * scale)
    # the same from the contact formula of the reference, solid by solid
    rimp, rmarked = ref.accumulate_solid_impulses(sc["pos"], sc["vel"], sc["mat"], sc["mass"],
                                                  sc["n"], sc["s_pos"], sc["s_vel"], sc["r_l"], dv)
    np.testing.assert_allclose(imp, rimp, rtol=1e-12, atol=1e-12 * scale)
    np.testing.assert_array_equal(marked, rmarked)
    # moving solids that fluid runs into are pushed: the ring gets a non-zero impulse
    assert np.abs(imp[-30:]).sum() > 0.0


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("passes", [1, 3])
def test_fluid_system_repulse_momentum_balance(seed, passes):
    """Façade, one material (fluid-fluid repulsion then conserves momentum): over the passes of
    ``repulse``, fluid momentum change + total solid impulse == 0."""
    fs = FluidSystem(FluidParams(width=60.0, height=50.0, gravity=(0.0, 0.0), seed=seed,
                                 repulsion_iterations=passes),
                     materials=[Material("w", viscosity=0.0)])
    fs.fill_rect(0.0, 0.0, 60.0, 30.0)
    ang = np.linspace(0.0, 2 * np.pi, 24, endpoint=False)
    ring = np.column_stack([30.0 + 6.0 * np.cos(ang), 14.0 + 6.0 * np.sin(ang)])
    fs.set_body_solids(ring, np.tile([2.0, -5.0], (24, 1)), np.zeros(24, np.int32))
    rng = np.random.default_rng(seed)
    fs.velocities[:] = rng.normal(0.0, 3.0, (fs.count, 2))
    fs.bin_particles()
    p0 = fs.momentum()
    fs.repulse(fs.params.h)
    dp = fs.momentum() - p0
    total = fs.solid_impulse.sum(axis=0)
    scale = np.abs(fs.solid_impulse).sum()
    assert scale > 10.0 and fs.solid_marked.sum() > 20
    assert np.all(np.abs(dp + total) <= 1e-11 * scale)
