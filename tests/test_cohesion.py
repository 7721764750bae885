"""``Material.cohesion``: Madams' pull between particles of one mix group with ``ddr`` (surface
tension of the material's own, an interfacial tension between immiscible ones); SRD and the
constraint solver ignore it."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from fluidworld import World
from fluidworld.fidelity import tension as T
from fluidworld.fluid import Material
from fluidworld.fluid.ddr_solver import cohesion_table


def _run(w: World, steps: int) -> None:
    for _ in range(steps):
        w.step()


@pytest.mark.parametrize(("cohesion", "lo", "hi"), [(0.0, 0.85, 0.90), (0.3, 0.92, 1.0)])
def test_a_cohesive_blob_pulls_itself_rounder(cohesion: float, lo: float, hi: float) -> None:
    """A 60 x 120 blob without gravity: ``ddr``'s own surface tension leaves it at 0.891
    (circularity of its hull; a disc is 1), cohesion 0.3 at 0.937 (measured, 3 s)."""
    assert lo < T.blob_circularity(60.0, 120.0, cohesion=cohesion, seconds=3.0) < hi


@pytest.mark.parametrize(("cohesion", "lo", "hi"), [(0.0, 0.85, 0.93), (0.3, 0.96, 1.0)])
def test_immiscible_cohesive_fluids_have_an_interfacial_tension(cohesion: float, lo: float,
                                                               hi: float) -> None:
    """A square of an immiscible fluid as dense as water, inside water, gravity off: with
    cohesion the two pull only their own, the interface has a tension and the square rounds
    up (0.977 after 3 s); without, it keeps the shape the first second leaves (0.896)."""
    assert lo < T.drop_circularity(cohesion) < hi


def test_the_blob_keeps_every_particle_and_stays_whole() -> None:
    w = T.weightless_world((T.cohesive_water(0.3),))
    n = w.add_fluid_rect(130, 100, 190, 220)
    _run(w, 120)
    assert w.check().ok and w.fluid.count == n
    assert np.linalg.norm(w.fluid.velocities, axis=1).max() < 20.0


def test_cohesion_keeps_momentum() -> None:
    """The pull is a pair's, split by mass: a cohesive blob of two materials coasting without
    gravity keeps its momentum (to rounding)."""
    heavy = Material("heavy", density=2.0, mix_group="water", cohesion=0.5)
    w = T.weightless_world((T.cohesive_water(0.5), heavy))
    w.add_fluid_rect(100, 100, 160, 160, velocity=(20.0, 0.0))
    w.add_fluid_rect(160, 100, 220, 160, material=1, velocity=(20.0, 0.0))
    p0 = w.fluid.momentum()
    _run(w, 30)
    assert np.allclose(w.fluid.momentum(), p0, rtol=1e-9, atol=1e-6)


def test_the_cohesion_table_pairs_one_mix_group_only() -> None:
    oil = Material("oil", density=0.8, mix_group="oil", cohesion=0.4)
    table = cohesion_table((T.cohesive_water(0.1), Material("ink", cohesion=0.4), oil), 2.0)
    assert table is not None
    assert table[0, 1] == pytest.approx(np.sqrt(0.04) * 2.0 * 2.0)  # water and ink: one group
    assert table[0, 2] == 0.0 and table[1, 2] == 0.0  # oil pulls only oil
    assert table[2, 2] == pytest.approx(0.4 * 2.0 * 1.6)
    # no material coheres: the kernels skip the term
    assert cohesion_table((T.cohesive_water(0.0), Material("ink")), 2.0) is None


@pytest.mark.parametrize("solver", ["srd", "constraint"])
def test_the_other_solvers_ignore_cohesion(solver: str) -> None:
    def run(cohesion: float) -> str:
        w = World(200, 160, solver=solver, materials=(T.cohesive_water(cohesion),))
        w.add_fluid_rect(20, 40, 100, 120)
        _run(w, 30)
        return w.state_hash()

    assert run(0.5) == run(0.0)


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan")])
def test_bad_cohesion_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="Material.cohesion"):
        Material("goo", cohesion=bad)


def test_a_material_saved_before_cohesion_loads_without_it() -> None:
    """Saves pickle the material table: one written before the field existed reads as 0."""
    state = dict(Material("goo", density=1.2).__dict__)
    del state["cohesion"]
    old = Material.__new__(Material)
    old.__setstate__(state)
    assert old.cohesion == 0.0 and old == Material("goo", density=1.2)
    again = pickle.loads(pickle.dumps(Material("goo", cohesion=0.4)))
    assert again.cohesion == 0.4


def test_the_tension_rows_of_the_fidelity_table_hold() -> None:
    rows = T.rows(quick=False)
    assert {r.group for r in rows} == {"tension"} and len(rows) == 6
    assert all(r.ok for r in rows), [r for r in rows if not r.ok]


def _pieces(p: np.ndarray, reach: float) -> int:
    """How many connected pieces the points make, joined within ``reach``."""
    parent = list(range(len(p)))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    near = ((p[:, None, :] - p[None, :, :]) ** 2).sum(-1) < reach * reach
    for a, b in zip(*np.nonzero(np.triu(near, 1)), strict=True):
        parent[find(int(a))] = find(int(b))
    return len({find(a) for a in range(len(p))})


@pytest.mark.parametrize(("cohesion", "whole"), [(0.0, False), (1.0, True)])
def test_a_cohesive_drop_splashes_into_a_pool_in_one_piece(cohesion: float, whole: bool) -> None:
    """The blobs demo's slime: a 60 x 60 block of an immiscible fluid of 1.1 dropped 160 into a
    pool 40 deep. Measured after 5 s: one piece at cohesion 0.3 and 1.0; at 0, the splash leaves
    five particles apart from it (joined within 1.5 spacings)."""
    slime = Material("slime", density=1.1, damping=0.05, mix_group="slime", cohesion=cohesion)
    w = World(400, 300, solver="ddr", materials=(T.cohesive_water(0.0), slime))
    w.add_fluid_rect(0, 0, 400, 40)
    w.add_fluid_rect(170, 200, 230, 260, material="slime")
    _run(w, 300)
    p = w.fluid.positions[w.fluid.materials == 1]
    assert len(p) > 150 and w.check().ok
    assert (_pieces(p, 1.5 * w.fluid.r_l) == 1) == whole


def test_a_ddr_solver_saved_before_cohesion_runs() -> None:
    """A solver pickled before the field existed has no ``_cohesion``: it reads as none."""
    w = World(200, 160, solver="ddr")
    w.add_fluid_rect(0, 0, 200, 40)
    w.step()
    solver = w.fluid.solver
    del solver.__dict__["_cohesion"]
    copy = pickle.loads(pickle.dumps(w))
    copy.step()
    w.fluid.solver._cohesion = None
    w.step()
    assert copy.state_hash() == w.state_hash()
