"""The cell-band kernels (``fluid/bands.py``) give the serial kernels' results bit for bit: the
counting sort and SRD's cell sums, on sorted, shuffled and degenerate inputs, with any number of
bands (each cell must still sum its particles in particle order)."""

from __future__ import annotations

import numpy as np
import pytest

from fluidworld.fluid import bands, binning, collision

NX, NY, INV = 40, 30, 1.0 / 4.5


def _points(kind: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    pos = np.column_stack([rng.uniform(0, NX / INV, n), rng.uniform(0, NY / INV, n)])
    if kind == "sorted":  # as the bin stage leaves them: in cell order, a little moved since
        c = (np.minimum((pos[:, 1] * INV).astype(int), NY - 1) * NX
             + np.minimum((pos[:, 0] * INV).astype(int), NX - 1))
        pos = pos[np.argsort(c, kind="stable")] + rng.normal(0, 0.5, (n, 2))
    elif kind == "one_cell":
        pos[:] = (7.0, 8.0)
    elif kind == "outliers" and n > 0:  # sorted, with a few particles far from their place
        pos = pos[np.argsort(pos[:, 1], kind="stable")]
        pos[rng.integers(0, n, 5)] = (1.0, NY / INV - 1.0)
    return np.clip(pos, 0.0, [NX / INV - 1e-9, NY / INV - 1e-9])


KINDS = ["sorted", "shuffled", "one_cell", "outliers"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [0, 1, 700, 5000])
@pytest.mark.parametrize("nbands", [1, 3, 16])
def test_the_band_sort_is_the_serial_sort(kind: str, n: int, nbands: int) -> None:
    pos = _points(kind, n, seed=n + nbands)
    rng = np.random.default_rng(1)
    vel = rng.normal(0, 1, (n, 2))
    mat = rng.integers(0, 4, n).astype(np.uint8)
    results = []
    for parallel in (False, True):
        out = (np.zeros((n, 2)), np.zeros((n, 2)), np.zeros(n, np.uint8))
        start = np.full(NX * NY + 1, -3, np.int64)
        span = np.array([0, NX * NY - 1, -1])
        keep = np.zeros((n, 2))
        for shift in (0.0, 3.0):  # a second sort into the same cell_start (the span path)
            p = np.clip(pos + shift, 0, [NX / INV - 1e-9, NY / INV - 1e-9])
            args = ((p, vel, mat, n), INV, NX, NY, out, start, np.zeros(n, np.int64), span,
                    keep)
            if parallel:
                bands.sort_particles_parallel(*args, nbands)
            else:
                binning.sort_particles(*args)
        results.append((*out, start, span.copy(), keep))
    for a, b in zip(*results, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [1, 700, 5000, 40_000])
@pytest.mark.parametrize("mixed", [False, True])
def test_band_cell_sums_make_the_parallel_collision_the_serial_one(kind: str, n: int,
                                                                   mixed: bool) -> None:
    pos = _points(kind, n, seed=2 * n)
    rng = np.random.default_rng(3)
    vel0 = rng.normal(0, 50, (n, 2))
    # one material: the uniform path, whose sums run in bands; a second one (another alpha) in
    # the last particle only: the general path, found by the (chunked) uniformity check
    mat = np.zeros(n, np.uint8)
    if mixed:
        mat[-1] = 1
    a0 = 9.0
    ncx, ncy = int(NX / INV / a0) + 2, int(NY / INV / a0) + 2
    nc = ncx * ncy
    tables = (np.array([1.0, 0.8]), np.array([2.0, 1.5]), np.array([0.05, 0.05]))
    signs = np.zeros(nc, np.int8)
    collision.random_signs(11, signs)
    out = []
    for collide in (collision.srd_collide, collision.srd_collide_parallel):
        vel = vel0.copy()
        cell_of = np.zeros(n, np.int64)
        collide((pos, vel, mat, n), tables, (a0, 2.5, 6.0, ncx, ncy),
                (signs, np.zeros(nc), np.zeros((nc, 2)), np.zeros(nc), np.zeros(nc),
                 np.zeros((nc, 2))), -1, cell_of)
        out.append(vel)
    assert np.abs(out[0] - vel0).max() > 0.1 or n == 1  # the collision did something
    np.testing.assert_array_equal(out[0], out[1])


def test_band_bounds_cover_the_cells_in_order() -> None:
    cell_of = np.sort(np.random.default_rng(0).integers(5, 500, 1000))
    b = bands.band_bounds(cell_of, 1000, 5, 499, 7)
    assert b[0] == 5 and b[-1] == 500 and (np.diff(b) >= 0).all()
    per_band = np.histogram(cell_of, bins=b)[0]
    assert per_band.max() < 2 * 1000 / 7  # about equal shares


@pytest.mark.parametrize("n", [0, 1, 20_000, 70_000])
def test_parallel_maxima_of_the_coupling_are_the_serial_ones(n: int) -> None:
    """The column tops (and the speed bound found with them) and the largest displacement since
    the sort: maxima, so the chunked parallel kernels must give exactly the serial values."""
    from fluidworld.coupling import containment, surface

    rng = np.random.default_rng(n)
    pos = np.column_stack([rng.uniform(0, 300, n), rng.uniform(0, 120, n)])
    pos = pos[np.argsort(pos[:, 1], kind="stable")]
    vel = rng.normal(0, 30, (n, 2))
    cell_count = rng.uniform(0, 8, (12, 30))
    solid = rng.uniform(0, 0.3, (12, 30))
    tops = [np.zeros(61), np.zeros(61)]
    vmax = [surface.column_tops(pos, vel, n, 10.0, cell_count, solid, 5.0, 4.97, tops[0]),
            surface.column_tops_parallel(pos, vel, n, 10.0, cell_count, solid, 5.0, 4.97,
                                         tops[1])]
    assert vmax[0] == vmax[1]
    np.testing.assert_array_equal(tops[0], tops[1])
    assert n < 20_000 or np.isfinite(tops[0]).sum() > 50  # most columns found a top
    start = pos + rng.normal(0, 0.2, (n, 2))
    assert (containment.max_displacement(pos, start, n)
            == containment.max_displacement_parallel(pos, start, n)
            == (np.abs(pos - start).max() if n else 0.0))


@pytest.mark.parametrize("n", [0, 1, 40_000])
def test_parallel_grid_helpers_are_the_serial_ones(n: int) -> None:
    """The material mix check, the rows' fluid spans and the pressure correction per cell: each
    parallel variant gives the serial result exactly."""
    from fluidworld.fluid import pressure, pressure_converged, pressure_variable, repulsion

    rng = np.random.default_rng(n + 5)
    mass, group = np.array([1.0, 1.0, 0.8]), np.array([0, 0, 1], np.uint8)
    inv_rho = np.array([1.0, 1.0, 1.25])
    for mat in (np.zeros(n, np.uint8), (np.arange(n) == n - 1).astype(np.uint8) * 2):
        assert repulsion.material_mix(mat, n, mass, group) == repulsion.material_mix_parallel(
            mat, n, mass, group) == (n > 1 and bool(mat.any()))
        assert (pressure_variable.mixed_densities(mat, n, inv_rho)
                == pressure_variable.mixed_densities_parallel(mat, n, inv_rho)
                == (n > 1 and bool(mat.any())))
    cnt = np.where(rng.random((40, 60)) < 0.3, 0.0, rng.uniform(0.5, 9.0, (40, 60)))
    spans = [np.zeros((40, 2), np.int64), np.zeros((40, 2), np.int64)]
    pressure.row_spans(cnt, spans[0])
    pressure.row_spans_parallel(cnt, spans[1])
    np.testing.assert_array_equal(spans[0], spans[1])
    phi = rng.normal(0, 3, (40, 60))
    act = np.array([0, 3, 4, 5, 39], np.int64)
    grads = [np.full((40, 60, 2), 7.0), np.full((40, 60, 2), 7.0)]
    wall = np.zeros(cnt.shape, np.uint8)
    pressure_converged.converged_correction(phi, cnt, wall, 10.0, grads[0], act)
    pressure_converged.converged_correction_parallel(phi, cnt, wall, 10.0, grads[1], act)
    np.testing.assert_array_equal(grads[0], grads[1])
    assert (grads[0][1] == 7.0).all() and (grads[0][3] != 7.0).any()  # only the rows given

