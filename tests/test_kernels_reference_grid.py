"""The cell pressure's numba kernels (deposit, paper and converged solves, corrections) against
their slow numpy references; see ``test_kernels_reference.py`` (advection, neighbour lists,
stripes, signs and material scans: ``test_kernels_reference_lists.py``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from kernel_scenes import (
    SEEDS,
    close,
    make_scene,
)

from fluidworld.fluid import pressure, pressure_converged
from fluidworld.fluid import reference as ref


# ----------------------------------------------------------------------------- pressure
def pressure_inputs(seed):
    """A scene's deposit inputs: solid cover on some cells (one of them fully solid, one with a
    cover below the air threshold), the rest random."""
    sc = make_scene(seed)
    rng = np.random.default_rng(300 + seed)
    frac = np.zeros((sc.ny, sc.nx))
    frac[0, 0] = 1.0
    frac[sc.ny - 1, 1] = 0.05                     # 0.25 particle-equivalents: air
    frac[sc.ny - 1, 3] = 0.6
    frac[1, 2] = rng.uniform(0.1, 0.9)
    svel = rng.normal(0.0, 1.0, (sc.ny, sc.nx, 2))
    return sc, frac, svel


def kernel_deposit(sc, frac, svel, pos=None):
    pos = sc.pos if pos is None else pos
    cnt = np.full((sc.ny, sc.nx), np.nan)
    vel_c = np.full((sc.ny, sc.nx, 2), np.nan)
    cell_of = np.full(len(pos), -1, np.int64)
    pressure.deposit_cells(pos, sc.vel, sc.n, sc.a0, sc.nx, sc.ny, sc.gamma, frac, svel, cnt,
                           vel_c, cell_of)
    return cnt, vel_c, cell_of


def random_grid(seed, ny=5, nx=6, p_empty=0.3):
    """cnt with air cells (including 0 < cnt < 0.5) and random cell velocities."""
    rng = np.random.default_rng(seed)
    cnt = rng.uniform(0.5, 12.0, (ny, nx))
    air = rng.random((ny, nx)) < p_empty
    cnt[air] = rng.choice([0.0, 0.2, 0.49], air.sum())
    cnt[0, 0] = 0.5                                # exactly the threshold: not air
    vel_c = rng.normal(0.0, 2.0, (ny, nx, 2))
    return cnt, vel_c


def shallow_grid(seed, nx=7):
    """A pool two cells deep on the floor and a film two cells thick under the ceiling, each
    with a sparse row (a partly filled row of particles) beyond them and under the rest density
    (5): the bottom and top rows correct only compression only because the sparse test of
    their two-row blocks looks a row further."""
    rng = np.random.default_rng(700 + seed)
    cnt = np.zeros((8, nx))
    cnt[[0, 1, 6, 7]] = rng.uniform(3.0, 4.8, (4, nx))
    cnt[[2, 5]] = rng.uniform(0.8, 2.4, (2, nx))
    return cnt, rng.normal(0.0, 2.0, (8, nx, 2))


@pytest.mark.parametrize("seed", SEEDS)
def test_deposit_cells(seed):
    sc, frac, svel = pressure_inputs(seed)
    cnt, vel_c, cell_of = kernel_deposit(sc, frac, svel)
    rcnt, rvel, rcell = ref.deposit_cells(sc.pos, sc.vel, sc.n, sc.a0, sc.nx, sc.ny, sc.gamma,
                                          frac, svel)
    assert (rcnt < ref.EMPTY_COUNT).sum() >= 1 and rcnt.sum() == pytest.approx(
        sc.n + frac.sum() * sc.gamma)
    close(cnt, rcnt)
    close(vel_c, rvel)
    np.testing.assert_array_equal(cell_of[:sc.n], rcell)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("iters", [0, 1, 10])
@pytest.mark.parametrize("clamp", [math.inf, 1.3])
def test_paper_pressure(seed, iters, clamp):
    cases = [random_grid(seed)]
    sc, frac, svel = pressure_inputs(seed)
    cnt, vel_c, _ = kernel_deposit(sc, frac, svel)
    cases.append((cnt, vel_c))
    cases.append(random_grid(seed + 50, ny=2, nx=3, p_empty=0.2))   # +-2 mirrors on both sides
    a0, gamma, h = 10.0, 5.0, 0.1
    for cnt, vel_c in cases:
        shape = cnt.shape
        div, p, p_tmp, grad = (np.full(shape, np.nan), np.full(shape, np.nan),
                               np.full(shape, np.nan), np.full((*shape, 2), np.nan))
        pressure.paper_pressure(cnt, vel_c, a0, gamma, h, iters, clamp, div, p, p_tmp, grad)
        rdiv, rp, rgrad = ref.paper_pressure(cnt, vel_c, a0, gamma, h, iters, clamp)
        scale = np.abs(rdiv).max()
        assert scale > 1.0
        close(div, rdiv, atol=1e-12 * scale)
        close(p, rp, atol=1e-12 * scale)
        close(grad, rgrad, atol=1e-12 * scale)
        if iters:
            assert np.abs(rgrad).max() > 0.0


def test_paper_pressure_by_hand():
    """Eq. 7-9 by hand on a 2 x 2 grid: one fluid cell in the corner moving +x, the rest air."""
    cnt = np.array([[5.0, 0.0], [0.0, 0.0]])
    vel_c = np.zeros((2, 2, 2))
    vel_c[0, 0] = [1.0, 0.0]
    a0, gamma, h = 10.0, 5.0, 0.1
    div, p, grad = ref.paper_pressure(cnt, vel_c, a0, gamma, h, 1, math.inf)
    # Eq. 7: right neighbour is air (0), left is the mirror of the cell itself (-1): s = 0 - (-1)
    assert div[0, 0] == pytest.approx(-2 * a0 * 1.0 / h * 1.0)
    # Eq. 8, one sweep from 0: p = div / 4; Eq. 9: right air 0, left mirror p -> grad_x = -h p/2a0
    assert p[0, 0] == pytest.approx(div[0, 0] / 4)
    assert grad[0, 0, 0] == pytest.approx(h / (2 * a0) * (0.0 - p[0, 0]))
    assert grad[0, 0, 1] == pytest.approx(h / (2 * a0) * (0.0 - p[0, 0]))
    assert np.all(p[cnt < 0.5] == 0) and np.all(grad[cnt < 0.5] == 0)
    d2, p2, tmp, g2 = np.zeros((2, 2)), np.zeros((2, 2)), np.zeros((2, 2)), np.zeros((2, 2, 2))
    pressure.paper_pressure(cnt, vel_c, a0, gamma, h, 1, math.inf, d2, p2, tmp, g2)
    close(d2, div)
    close(p2, p)
    close(g2, grad)


#: What the pressure stage passes where there are no wall cells.
NO_WALLS = np.zeros((0, 0), np.uint8)


def wall_cells(shape, seed, walls):
    """No wall cells, or about a fifth of the cells (uint8, as ``FluidSystem.wall_cells``)."""
    if not walls:
        return np.zeros(shape, np.uint8)
    return (np.random.default_rng(700 + seed).random(shape) < 0.2).astype(np.uint8)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("beta", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("walls", [False, True])
def test_converged_rhs(seed, beta, walls):
    sc, frac, svel = pressure_inputs(seed)
    cnt_d, vel_d, _ = kernel_deposit(sc, frac, svel)
    corrected = 0
    biggest = 0.0
    for cnt, vel_c in (random_grid(seed), (cnt_d, vel_d), random_grid(seed, ny=2, nx=2),
                       shallow_grid(seed)):
        shape = cnt.shape
        wall = wall_cells(shape, seed, walls)
        rhs, rhs_d = np.full(shape, np.nan), np.full(shape, np.nan)
        pressure_converged.converged_rhs(cnt, wall, vel_c, 10.0, 5.0, 0.05, beta, rhs, rhs_d)
        rrhs, rrhs_d = ref.converged_rhs(cnt, vel_c, 10.0, 5.0, 0.05, beta, wall)
        close(rhs, rrhs, atol=1e-10)
        close(rhs_d, rrhs_d, atol=1e-10)
        if not walls:  # no wall cells: the stage passes an empty mask, the same bit for bit
            rhs2, rhs_d2 = np.full(shape, np.nan), np.full(shape, np.nan)
            pressure_converged.converged_rhs(cnt, NO_WALLS, vel_c, 10.0, 5.0, 0.05, beta, rhs2,
                                             rhs_d2)
            assert np.array_equal(rhs2, rhs) and np.array_equal(rhs_d2, rhs_d)
        biggest = max(biggest, np.abs(rrhs).max())
        corrected += int((rrhs_d != 0).sum())
    assert biggest > 1.0
    assert (corrected > 0) == (beta > 0)


def test_a_two_cell_pool_corrects_only_compression():
    """Under the rest density everywhere, a sparse row over it: nothing to correct (with
    only its two-row block seen, the bottom row pulled particles down from the top one), on
    the grid's floor and ceiling and on a wall cell's row (a tank's floor)."""
    cnt, vel_c = shallow_grid(0)
    rhs, rhs_d = np.zeros(cnt.shape), np.full(cnt.shape, np.nan)
    pressure_converged.converged_rhs(cnt, NO_WALLS, vel_c, 10.0, 5.0, 0.05, 0.3, rhs, rhs_d)
    assert np.all(rhs_d == 0.0)
    tank = np.zeros((9, 7))
    tank[2:] = cnt[:7]  # air, a floor of wall cells, the pool two cells deep on it
    wall = np.zeros(tank.shape, np.uint8)
    wall[1] = 1
    vel_t = np.zeros((9, 7, 2))
    rhs, rhs_d = np.zeros(tank.shape), np.full(tank.shape, np.nan)
    pressure_converged.converged_rhs(tank, wall, vel_t, 10.0, 5.0, 0.05, 0.3, rhs, rhs_d)
    assert np.all(rhs_d == 0.0)
    close(rhs_d, ref.converged_rhs(tank, vel_t, 10.0, 5.0, 0.05, 0.3, wall)[1], atol=1e-12)


def rbgs_inputs(seed, ny=6, nx=7):
    rng = np.random.default_rng(400 + seed)
    cnt, _ = random_grid(seed, ny, nx)
    if ny > 2 and nx > 2:
        cnt[-1, :] = 0.0                            # an all-air row
        cnt[1, :2] = 0.1                            # a row whose span starts at column 2
    phi0 = rng.normal(0.0, 5.0, (ny, nx))             # warm start, non-zero in air cells too
    rhs = rng.normal(0.0, 10.0, (ny, nx))
    return phi0, rhs, cnt


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("iters", [0, 1, 2, 9])
@pytest.mark.parametrize("omega", [1.0, 1.6])
def test_solve_rbgs(seed, iters, omega):
    for shape in ((6, 7), (2, 2), (3, 8)):
        phi0, rhs, cnt = rbgs_inputs(seed, *shape)
        phi = phi0.copy()
        pressure_converged.solve_rbgs(phi, rhs, cnt, iters, omega)
        rphi = ref.solve_rbgs(phi0, rhs, cnt, iters, omega)
        close(phi, rphi, atol=1e-11)
        wall = wall_cells(shape, seed, True)
        phi_w = phi0.copy()
        pressure_converged.solve_rbgs(phi_w, rhs, cnt, iters, omega, None, wall)
        close(phi_w, ref.solve_rbgs(phi0, rhs, cnt, iters, omega, wall), atol=1e-11)
        assert np.all(phi_w[wall != 0] == 0.0)
        if iters:
            assert np.all(rphi[cnt < 0.5] == 0.0) and np.all(phi[cnt < 0.5] == 0.0)
        # sweeping only each row's non-air span changes nothing, bit for bit
        spans = np.full((shape[0], 2), -9, np.int64)
        pressure.row_spans(cnt, spans)
        np.testing.assert_array_equal(spans, ref.row_spans(cnt))
        phi_sp = phi0.copy()
        pressure_converged.solve_rbgs(phi_sp, rhs, cnt, iters, omega, spans)
        assert np.array_equal(phi_sp, phi)


@pytest.mark.parametrize("seed", SEEDS)
def test_pair_solver_gives_each_field_its_own_solve(seed):
    """The pressure and the density potential share sweeps (``solve_padded_pair``): each field
    ends bit for bit where ``solve_padded`` alone takes it, serial and parallel."""
    phi0, rhs, cnt = rbgs_inputs(seed, 9, 11)
    rng = np.random.default_rng(seed)
    psi0 = rng.normal(0.0, 3.0, phi0.shape)
    rhs2 = rng.normal(0.0, 4.0, phi0.shape)
    invk = np.empty_like(cnt)
    rows = np.arange(cnt.shape[0], dtype=np.int64)
    pressure_converged.solver_coefficients(cnt, wall_cells(cnt.shape, seed, True), invk, rows)
    spans = np.empty((cnt.shape[0], 2), np.int64)
    pressure.row_spans(cnt, spans)

    def padded(a):
        return np.pad(a, 1)

    alone = []
    for field, r in ((phi0, rhs), (psi0, rhs2)):
        pad = padded(field)
        pressure_converged.solve_padded(pad, r, cnt, invk, 7, 1.6, spans, rows)
        alone.append(pad)
    assert not np.array_equal(alone[0], padded(phi0))
    for solve in (pressure_converged.solve_padded_pair,
                  pressure_converged.solve_padded_pair_parallel):
        a, b = padded(phi0), padded(psi0)
        solve(a, rhs, b, rhs2, cnt, invk, 7, 1.6, spans, rows)
        assert np.array_equal(a, alone[0]) and np.array_equal(b, alone[1])


@pytest.mark.parametrize("seed", SEEDS)
def test_solver_coefficients_without_wall_cells(seed):
    """An empty mask (no wall cells) and an all-zero one give the same coefficients."""
    _, _, cnt = rbgs_inputs(seed, 9, 11)
    a, b = np.full(cnt.shape, np.nan), np.full(cnt.shape, np.nan)
    pressure_converged.solver_coefficients(cnt, NO_WALLS, a)
    pressure_converged.solver_coefficients(cnt, np.zeros(cnt.shape, np.uint8), b)
    assert np.array_equal(a, b)
    assert np.all(a[cnt < 0.5] == 0.0) and np.all(a[cnt >= 0.5] > 0.0)


def test_row_spans_edge_rows():
    cnt = np.array([[0.0, 0.0, 0.0, 0.0],      # all air
                    [0.0, 5.0, 0.2, 0.0],      # one cell
                    [1.0, 0.0, 0.0, 0.5],      # both ends, air inside
                    [3.0, 3.0, 3.0, 3.0]])
    spans = np.full((4, 2), -1, np.int64)
    pressure.row_spans(cnt, spans)
    np.testing.assert_array_equal(ref.row_spans(cnt), [[0, 0], [1, 2], [0, 4], [0, 4]])
    np.testing.assert_array_equal(spans, ref.row_spans(cnt))


@pytest.mark.parametrize("seed", SEEDS[:2])
@pytest.mark.parametrize("walls", [False, True])
def test_solve_rbgs_converges_to_the_documented_equation(seed, walls):
    """Many sweeps solve ``sum_nb (phi_nb - phi) = rhs`` (the border and wall cells Neumann,
    air phi = 0)."""
    phi0, rhs, cnt = rbgs_inputs(seed)
    cnt[2, 3] = 0.0      # guarantee an air cell: the Dirichlet condition makes the system regular
    wall = np.zeros(cnt.shape, np.uint8)
    if walls:  # an L that cuts no region off the air (which would leave it without a solution)
        wall[0:3, 4] = 1
        wall[3, 1:4] = 1
    phi = phi0.copy()
    pressure_converged.solve_rbgs(phi, rhs, cnt, 2000, 1.6, None, wall)
    assert np.abs(ref.poisson_residual(phi, rhs, cnt, wall)).max() < 1e-9
    rphi = ref.solve_rbgs(phi0, rhs, cnt, 2000, 1.6, wall)
    assert np.abs(ref.poisson_residual(rphi, rhs, cnt, wall)).max() < 1e-9


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("walls", [False, True])
def test_converged_correction(seed, walls):
    for shape in ((6, 7), (2, 2), (3, 8)):
        phi, _, cnt = rbgs_inputs(seed, *shape)
        wall = wall_cells(shape, seed, walls)
        grad = np.full((*shape, 2), np.nan)
        pressure_converged.converged_correction(phi, cnt, wall, 10.0, grad)
        close(grad, ref.converged_correction(phi, cnt, 10.0, wall))
        if not walls:
            grad2 = np.full((*shape, 2), np.nan)
            pressure_converged.converged_correction(phi, cnt, NO_WALLS, 10.0, grad2)
            assert np.array_equal(grad2, grad)


def test_converged_correction_linear_phi():
    """phi = 3x + 5y (no air): every face gradient is (3, 5), walls or not."""
    ny, nx, a0 = 4, 5, 2.0
    y, x = (np.indices((ny, nx)) + 0.5) * a0
    phi = 3 * x + 5 * y
    cnt = np.full((ny, nx), 5.0)
    grad = np.zeros((ny, nx, 2))
    pressure_converged.converged_correction(phi, cnt, np.zeros((ny, nx), np.uint8), a0, grad)
    close(grad[..., 0], 3.0)
    close(grad[..., 1], 5.0)
    close(ref.converged_correction(phi, cnt, a0), grad)


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_apply_cell_correction_and_shift(seed):
    sc, frac, svel = pressure_inputs(seed)
    _, _, cell_of = kernel_deposit(sc, frac, svel)
    grad = np.random.default_rng(seed).normal(0.0, 1.0, (sc.ny, sc.nx, 2))
    v, p = sc.vel.copy(), sc.pos.copy()
    pressure.apply_cell_correction(v, sc.n, cell_of, grad, sc.nx)
    pressure_converged.apply_cell_shift(p, sc.n, cell_of, grad, sc.nx, 0.05)
    close(v[:sc.n], ref.apply_cell_correction(sc.vel, sc.n, cell_of, grad, sc.nx))
    close(p[:sc.n], ref.apply_cell_shift(sc.pos, sc.n, cell_of, grad, sc.nx, 0.05))
    np.testing.assert_array_equal(v[sc.n:], sc.vel[sc.n:])
    np.testing.assert_array_equal(p[sc.n:], sc.pos[sc.n:])
