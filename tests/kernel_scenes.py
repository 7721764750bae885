"""Small random scenes for the kernel-against-reference tests (``test_kernels_reference*.py``):
a few cells, 50-300 particles, several materials, wall and body solids, air cells, particles on
and just outside the walls, coincident pairs; the tolerances the kernels are held to."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fluidworld.fluid import binning

RTOL = 1e-12
ATOL = 1e-12
SEEDS = (0, 1, 2, 3)


def close(actual, desired, rtol=RTOL, atol=ATOL):
    np.testing.assert_allclose(actual, desired, rtol=rtol, atol=atol)


def close_eq6(actual, desired, r_l):
    """Repulsion results against the double-precision reference: the kernels compute Eq. 6's
    ``1/l`` in single precision (relative error < 1e-6, see ``repulsion._inv_length``), so a
    displacement may differ by ~1e-6 of the pair scale ``r_L``; any real error is of order r_L."""
    np.testing.assert_allclose(actual, desired, rtol=2e-6, atol=2e-6 * r_l)


# ----------------------------------------------------------------------------- scenes
@dataclass
class Scene:
    pos: np.ndarray        # (cap, 2), live rows [:n], garbage after
    vel: np.ndarray
    mat: np.ndarray
    n: int
    width: float
    height: float
    a0: float
    gamma: float
    nx: int                # pressure grid
    ny: int
    r_l: float
    nb_h: float            # neighbour grid
    nb_nx: int
    nb_ny: int
    s_pos: np.ndarray
    s_vel: np.ndarray
    mass: np.ndarray       # per material
    alpha: np.ndarray
    visc: np.ndarray


def make_scene(seed: int, n: int = 200, gamma: float = 5.0, n_solid_body: int = 24,
               walls: bool = True, grid: str = "rl") -> Scene:
    """``grid``: the neighbour grid, ``"rl"`` (cells of ``r_L``, as FluidSystem builds it) or
    ``"nested"`` (cells of ``a0 / floor(a0 / r_L)``, nesting in pressure cells)."""
    rng = np.random.default_rng(seed)
    a0 = 10.0
    width, height = 47.0, 38.0          # 5 x 4 pressure cells, the last ones partial
    nx, ny = math.ceil(width / a0), math.ceil(height / a0)
    r_l = math.sqrt(2.0 * a0 * a0 / (gamma * math.sqrt(3.0)))
    if grid == "nested":
        m_sub = max(1, int(math.floor(a0 / r_l + 1e-12)))
        nb_h = a0 / m_sub
        nb_nx, nb_ny = nx * m_sub, ny * m_sub
    else:
        nb_h = r_l * (1.0 + 1e-9)
        nb_nx, nb_ny = math.ceil(width / nb_h), math.ceil(height / nb_h)
    # Fluid: most particles in the lower ~2/3 (the top row stays mostly air), a dense clump
    # (many overlaps), some on/near/just outside the walls, a few exact duplicates.
    n_clump, n_wall = n // 5, n // 5
    n_bulk = n - n_clump - n_wall
    bulk = rng.uniform([0.0, 0.0], [width, 0.65 * height], (n_bulk, 2))
    clump = rng.normal([0.5 * width, 0.3 * height], 0.6 * r_l, (n_clump, 2))
    side = rng.integers(0, 4, n_wall)
    t = rng.uniform(0.0, 1.0, n_wall)
    off = rng.uniform(-0.4 * r_l, 0.8 * r_l, n_wall)      # negative: outside the box
    wall = np.where(
        (side == 0)[:, None], np.column_stack([off, t * height]),
        np.where((side == 1)[:, None], np.column_stack([width - off, t * height]),
                 np.where((side == 2)[:, None], np.column_stack([t * width, off]),
                          np.column_stack([t * width, 0.65 * height + off]))))
    live = np.concatenate([bulk, clump, wall])
    live[3] = live[7]                                       # coincident pairs
    live[10] = live[11] = live[12]
    cap = n + 17
    pos = rng.uniform(-1e3, 1e3, (cap, 2))                  # garbage beyond n
    pos[:n] = live
    vel = rng.uniform(-1e3, 1e3, (cap, 2))
    vel[:n] = rng.normal(0.0, 3.0, (n, 2))
    mat = rng.integers(0, 4, cap).astype(np.uint8)
    # Solids: box walls at r_L/2 spacing (as FluidSystem makes them), a moving ring, two strays
    # outside the domain.
    s = r_l / 2
    xs = np.arange(0.0, width + 1e-9, s)
    ys = np.arange(s, height - 1e-9, s)
    wall_s = np.concatenate([
        np.column_stack([xs, np.zeros_like(xs)]),
        np.column_stack([xs, np.full_like(xs, height)]),
        np.column_stack([np.zeros_like(ys), ys]),
        np.column_stack([np.full_like(ys, width), ys]),
    ]) if walls else np.zeros((0, 2))
    ang = np.linspace(0.0, 2 * np.pi, n_solid_body, endpoint=False)
    ring = np.column_stack([0.3 * width + 6.0 * np.cos(ang), 0.35 * height + 6.0 * np.sin(ang)])
    stray = np.array([[-0.3 * r_l, 0.5 * height], [width + 0.2 * r_l, 0.2 * height]])
    s_pos = np.concatenate([wall_s, ring, stray])
    s_vel = np.zeros_like(s_pos)
    s_vel[len(wall_s):] = rng.normal(0.0, 2.0, (len(ring) + len(stray), 2))
    area = a0 * a0 / gamma
    return Scene(pos, vel, mat, n, width, height, a0, gamma, nx, ny, r_l, nb_h,
                 nb_nx, nb_ny, s_pos, s_vel,
                 mass=np.array([1.0, 1.0, 0.8, 1.4]) * area,
                 alpha=np.array([np.pi / 2, 2.0, np.pi / 3, 0.7]),
                 visc=np.array([0.05, 0.0, 0.0, 0.3]))


def kernel_sort(sc: Scene):
    """Run the kernel sort; returns sorted pos, vel, mat (n rows) and cell_start."""
    ncell = sc.nb_nx * sc.nb_ny
    cap = len(sc.pos)
    pos2, vel2, mat2 = np.zeros((cap, 2)), np.zeros((cap, 2)), np.zeros(cap, np.uint8)
    start = np.full(ncell + 1, -7, np.int64)
    cell_of = np.zeros(cap, np.int64)
    keep = np.full((cap, 2), np.nan)  # the start positions the sort keeps for containment
    binning.sort_particles((sc.pos, sc.vel, sc.mat, sc.n), 1.0 / sc.nb_h, sc.nb_nx, sc.nb_ny,
                           (pos2, vel2, mat2), start, cell_of, np.array([0, ncell - 1, -1]), keep)
    np.testing.assert_array_equal(keep[: sc.n], pos2[: sc.n])
    assert np.isnan(keep[sc.n:]).all()
    return pos2, vel2, mat2, start, cell_of


def kernel_bin_solids(sc: Scene):
    ncell = sc.nb_nx * sc.nb_ny
    s_start = np.full(ncell + 1, -7, np.int64)
    s_order = np.full(len(sc.s_pos), -7, np.int64)
    binning.bin_points(sc.s_pos, len(sc.s_pos), 1.0 / sc.nb_h, sc.nb_nx, sc.nb_ny, s_start,
                       s_order)
    return s_start, s_order


# ----------------------------------------------------------------------------- repulsion
def sorted_scene(seed, gamma=5.0, n=200, walls=True, grid="rl"):
    sc = make_scene(seed, gamma=gamma, n=n, walls=walls, grid=grid)
    pos2, vel2, mat2, start, _ = kernel_sort(sc)
    s_start, s_order = kernel_bin_solids(sc)
    return sc, pos2, vel2, mat2, start, s_start, s_order


def kernel_repulse(kern, sc, pos, vel, start, s_start, s_order, dv, s_pos=None, s_vel=None,
                   **still):
    cap = len(pos)
    disp = np.full((cap, 2), np.nan)
    dvel = np.full((cap, 2), np.nan)
    wsum = np.full(cap, np.nan)
    kern(pos, vel, start, sc.nb_nx, sc.nb_ny, sc.s_pos if s_pos is None else s_pos,
         sc.s_vel if s_vel is None else s_vel, s_start, s_order, sc.r_l, dv, disp, dvel, wsum,
         **still)
    return disp, dvel, wsum


