"""World.save / World.load: a saved game continues exactly; bad files are refused clearly."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from fluidworld import World


def _scene() -> World:
    world = World(300, 200)
    world.add_fluid_rect(0, 0, 300, 70)
    world.add_fluid_rect(0, 70, 120, 100, material="oil")
    world.add_box((150, 120), (30, 30), density=0.6)
    world.add_ball((240, 130), 12, density=0.8)
    world.add_static_segment((0, 150), (80, 120), radius=3)
    world.add_emitter((20, 180), (1, -1), 80, rate=120)
    world.add_drain((280, 0, 300, 20))
    for _ in range(30):
        world.step()
    return world


def test_a_saved_world_continues_exactly_like_the_original(tmp_path: Path) -> None:
    world = _scene()
    path = tmp_path / "game.sav"
    world.save(path)
    loaded = World.load(path)
    assert loaded.state_hash() == world.state_hash()
    assert loaded.fluid.count == world.fluid.count and loaded.time == world.time
    assert len(list(loaded.entities)) == len(list(world.entities))
    for _ in range(40):
        world.step()
        loaded.step()
    assert loaded.state_hash() == world.state_hash()
    assert loaded.particles_added == world.particles_added > 0
    assert not list(tmp_path.glob("*.tmp"))


def test_load_refuses_what_is_not_a_save(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sav"
    junk.write_bytes(b"not a pickle at all")
    with pytest.raises(ValueError, match="not a fluidworld save"):
        World.load(junk)
    other = tmp_path / "other.sav"
    other.write_bytes(pickle.dumps({"format": "something else"}))
    with pytest.raises(ValueError, match="not a fluidworld save"):
        World.load(other)
    newer = tmp_path / "newer.sav"
    newer.write_bytes(pickle.dumps({"format": "fluidworld.world", "version": 99, "world": 1}))
    with pytest.raises(ValueError, match="format 99"):
        World.load(newer)
    with pytest.raises(FileNotFoundError):
        World.load(tmp_path / "missing.sav")
