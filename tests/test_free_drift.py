"""The pressure stage's free-drift fix (:mod:`fluidworld.fluid.free_drift`) against a plain
breadth-first fill over every cell, on random fields of blobs, pools and droplets."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from fluidworld.coupling.fluid_forces import cover_excess
from fluidworld.fluid.free_drift import free_regions, remove_free_drift
from fluidworld.fluid.pressure import EMPTY_COUNT


def bfs_reference(cnt, grad, solid_frac, gamma, wall):
    """The fix as first written: a fill from every unvisited non-empty cell, in row-major
    order; a region that touches no edge has its weighted mean gradient removed. Wall cells
    belong to no region, and a region beside one touches a wall."""
    ny, nx = cnt.shape
    seen = wall.astype(bool).copy()
    free_starts = []
    for j0 in range(ny):
        for i0 in range(nx):
            if seen[j0, i0] or cnt[j0, i0] < EMPTY_COUNT:
                continue
            seen[j0, i0] = True
            order, queue, touches = [], deque([(j0, i0)]), False
            while queue:
                j, i = queue.popleft()
                order.append((j, i))
                touches |= i in (0, nx - 1) or j in (0, ny - 1)
                for jj, ii in ((j + 1, i), (j - 1, i), (j, i + 1), (j, i - 1)):
                    touches |= 0 <= jj < ny and 0 <= ii < nx and bool(wall[jj, ii])
                    if 0 <= jj < ny and 0 <= ii < nx and not seen[jj, ii] \
                            and cnt[jj, ii] >= EMPTY_COUNT:
                        seen[jj, ii] = True
                        queue.append((jj, ii))
            if touches:
                continue
            free_starts.append(j0 * nx + i0)
            w = gx = gy = 0.0
            for j, i in order:
                k = cnt[j, i]
                if any(cnt[jj, ii] < EMPTY_COUNT  # next to air (the domain's edge is not)
                       for jj, ii in ((j + 1, i), (j - 1, i), (j, i + 1), (j, i - 1))
                       if 0 <= jj < ny and 0 <= ii < nx):
                    k -= solid_frac[j, i] * gamma
                w += k
                gx += k * grad[j, i, 0]
                gy += k * grad[j, i, 1]
            if w > 0.0:
                for j, i in order:
                    grad[j, i, 0] -= gx / w
                    grad[j, i, 1] -= gy / w
    return free_starts


def random_field(rng, ny, nx, fill):
    cnt = np.where(rng.random((ny, nx)) < fill, rng.uniform(1.0, 6.0, (ny, nx)), 0.0)
    cnt[-3:, :] = np.where(rng.random((3, nx)) < 0.9, 4.0, 0.0)  # a pool on the floor row
    return cnt


def no_walls(shape):
    return np.zeros(shape, np.uint8)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("fill", [0.2, 0.45, 0.6])
@pytest.mark.parametrize("walls", [0.0, 0.05])
def test_the_run_labelling_finds_the_free_regions_a_fill_finds(seed, fill, walls):
    rng = np.random.default_rng(seed)
    ny, nx = 23, 31
    cnt = random_field(rng, ny, nx, fill)
    wall = (rng.random((ny, nx)) < walls).astype(np.uint8)
    grad = rng.normal(size=(ny, nx, 2))
    solid = rng.random((ny, nx)) * 0.3
    want_grad = grad.copy()
    starts = bfs_reference(cnt, want_grad, solid, 0.7, wall)
    got, nfree = free_regions(cnt, wall, np.arange(ny))
    assert list(got[:nfree]) == starts
    order = np.empty(ny * nx, np.int64)
    seen = np.zeros(ny * nx, np.bool_)
    g2 = grad.copy()
    remove_free_drift(cnt, wall, grad, grad.copy(), False, solid, 0.7, order, seen)
    assert np.array_equal(grad, want_grad)  # the same sums in the same order
    if not walls:  # the empty mask the stage passes where there are none: the same
        got, nfree = free_regions(cnt, np.zeros((0, 0), np.uint8), np.arange(ny))
        assert list(got[:nfree]) == starts
        remove_free_drift(cnt, np.zeros((0, 0), np.uint8), g2, g2.copy(), False, solid, 0.7,
                          order, seen)
        assert np.array_equal(g2, want_grad)


def test_a_lone_droplet_has_no_net_pressure_impulse_and_a_pool_keeps_its_own():
    ny, nx = 12, 12
    cnt = np.zeros((ny, nx))
    cnt[4:7, 4:8] = 4.0  # a droplet away from every edge
    cnt[0:2, :] = 4.0  # a pool on the floor
    grad = np.ones((ny, nx, 2))
    order = np.empty(ny * nx, np.int64)
    seen = np.zeros(ny * nx, np.bool_)
    remove_free_drift(cnt, no_walls(cnt.shape), grad, grad.copy(), False, np.zeros((ny, nx)),
                      1.0, order, seen)
    assert np.allclose(grad[4:7, 4:8], 0.0)
    assert np.all(grad[0:2] == 1.0)


def test_a_bodys_cover_past_the_cap_weighs_in_the_droplets_balance():
    """A droplet with a body's cover in its middle cells: the cover over the cap of 1 (the
    coupling pushes all of it) counts as the capped cover does, ``excess x gamma`` where the
    cell is not next to air, so the droplet's particles and the body's pushed cover together
    take no net impulse; without ``excess`` the same field keeps the capped weights."""
    ny, nx, gamma = 12, 12, 4.0
    cnt = np.zeros((ny, nx))
    cnt[3:9, 3:9] = 4.0  # fluid and cover together, the cover capped at 1 (4 = gamma)
    solid = np.zeros((ny, nx))
    solid[5:7, 5:7] = 1.0
    excess = np.zeros((ny, nx))
    excess[5, 5], excess[6, 6] = 0.11, 0.05
    excess[3, 3] = 0.2  # next to air: no push there, no weight
    rng = np.random.default_rng(3)
    grad = rng.normal(size=(ny, nx, 2))
    order = np.empty(ny * nx, np.int64)
    seen = np.zeros(ny * nx, np.bool_)
    plain = grad.copy()
    remove_free_drift(cnt, no_walls(cnt.shape), grad, grad.copy(), False, solid, gamma, order,
                      seen, None, excess)
    weight = cnt + excess * gamma
    weight[3, 3] = cnt[3, 3]
    assert np.allclose((weight[..., None] * grad).sum(axis=(0, 1)), 0.0, atol=1e-12)
    remove_free_drift(cnt, no_walls(cnt.shape), plain, plain.copy(), False, solid, gamma,
                      order, seen)
    assert np.allclose((cnt[..., None] * plain).sum(axis=(0, 1)), 0.0, atol=1e-12)
    assert not np.allclose(plain, grad)


def test_cover_excess_counts_the_samples_past_a_full_cell() -> None:
    pos = np.array([[5.0, 5.0], [6.0, 5.0], [15.0, 5.0], [25.0, 5.0], [-1.0, 5.0]])
    area = np.array([70.0, 41.0, 90.0, 100.0, 500.0])  # a0 10: 1.11, 0.9, 1.0, outside
    out = np.full((2, 3), 9.0)  # overwritten
    cover_excess(pos, area, 4, 10.0, out)
    assert np.allclose(out, [[0.11, 0.0, 0.0], [0.0, 0.0, 0.0]])


def test_water_in_a_tank_of_wall_cells_keeps_its_weight_on_the_tank():
    """A tank standing in the air (wall cells: a floor and two sides) touches no domain edge;
    its water is not a free droplet, and keeps the pressure that holds it up."""
    ny, nx = 12, 12
    cnt = np.zeros((ny, nx))
    cnt[4:7, 4:8] = 4.0
    wall = no_walls(cnt.shape)
    wall[3, 3:9] = 1
    wall[3:8, 3] = 1
    wall[3:8, 8] = 1
    grad = np.ones((ny, nx, 2))
    order = np.empty(ny * nx, np.int64)
    seen = np.zeros(ny * nx, np.bool_)
    assert free_regions(cnt, wall, np.arange(ny))[1] == 0
    remove_free_drift(cnt, wall, grad, grad.copy(), False, np.zeros((ny, nx)), 1.0, order, seen)
    assert np.all(grad == 1.0)
    assert free_regions(cnt, no_walls(cnt.shape), np.arange(ny))[1] == 1


def test_regions_split_by_an_inactive_row_are_not_joined():
    ny, nx = 9, 6
    cnt = np.zeros((ny, nx))
    cnt[2, 2:4] = 4.0
    cnt[4, 2:4] = 4.0  # row 3 empty: two droplets
    got, nfree = free_regions(cnt, no_walls(cnt.shape), np.array([2, 4]))
    assert list(got[:nfree]) == [2 * nx + 2, 4 * nx + 2]
    cnt[3, 3] = 4.0  # now one U-shaped region, found once
    got, nfree = free_regions(cnt, no_walls(cnt.shape), np.arange(ny))
    assert list(got[:nfree]) == [2 * nx + 2]
