"""What the World refuses at the call, and what it keeps bounded: sprites a renderer could not
load, material tables with a name twice, and the event queue of a game that never polls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fluidworld import World
from fluidworld.fluid import WATER, Material
from fluidworld.world_fluid import MAX_EVENTS


@pytest.mark.parametrize("sprite", [5, 1.5, True, "", ["crate"]])
def test_a_sprite_that_is_no_texture_is_refused_when_the_body_is_made(sprite: Any) -> None:
    world = World(200, 150)
    with pytest.raises(TypeError, match="sprite"):
        world.add_box((100, 100), (20, 20), sprite=sprite)
    with pytest.raises(TypeError, match="sprite"):
        world.add_ball((100, 100), 10, sprite=sprite)
    assert len(world.space.bodies) == 0 and list(world.entities) == []


def test_a_sprite_path_names_the_body_after_its_file() -> None:
    world = World(200, 150)
    e = world.add_box((100, 100), (20, 20), sprite=Path("art/barrel.png"))
    assert e.kind == "barrel" and e.sprite == Path("art/barrel.png")
    assert world.add_box((50, 100), (20, 20), sprite=None).kind == "body"
    with pytest.raises(TypeError, match="kind"):
        world.add_box((150, 100), (20, 20), kind=3)  # type: ignore[arg-type]


def test_a_material_table_with_a_name_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="distinct names.*'water'"):
        World(200, 150, materials=[WATER, Material("water", density=2.0)])


def test_events_nobody_polls_stay_bounded_and_are_counted() -> None:
    world = World(200, 150)
    world.add_fluid_rect(0, 0, 200, 40)
    world.add_emitter((100, 100), (0, -1), speed=50, rate=600)
    world.add_drain((0, 0, 200, 150))  # eats every step: one event each
    extra = 50
    for _ in range(MAX_EVENTS + extra):
        world._event(object())  # as a drain would, without stepping 4,000 times
    world.step()
    events = world.poll_events()
    assert len(events) == MAX_EVENTS and world.events_dropped == extra + 1
    assert type(events[-1]).__name__ == "DrainEvent"  # the newest is kept
    world.step()
    assert len(world.poll_events()) == 1
