"""The ready-made systems' fields: changed after creation they take effect at the next substep,
and a bad value is refused when set (at creation or later) with an error naming the field."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import numpy as np
import pytest

from fluidworld import World
from fluidworld.systems import Current, ForceField, Vortex


def pool() -> World:
    world = World(200.0, 120.0)
    world.add_fluid_rect(0, 0, 200, 60)
    world.add_fluid_rect(0, 60, 60, 80, material="oil")
    return world


def run(system: Any, steps: int = 8, change: dict[str, Any] | None = None) -> str:
    """The state hash after ``steps``, with ``change`` set on the system before the first."""
    world = pool()
    world.add_system(system, after="external_forces")
    for key, value in (change or {}).items():
        setattr(system, key, value)
    for _ in range(steps):
        world.step()
    return world.state_hash()


@pytest.mark.parametrize(("make", "change"), [
    (lambda: Current((0, 0, 200, 120), velocity=(100, 0)), {"velocity": (0, 0)}),
    (lambda: Current((0, 0, 200, 120), velocity=(100, 0)), {"region": (0, 0, 50, 30)}),
    (lambda: Current((0, 0, 200, 120), velocity=(100, 0)), {"rate": 40.0}),
    (lambda: Current((0, 0, 200, 120), velocity=(100, 0)), {"material": "oil"}),
    (lambda: ForceField((0, 0, 200, 120), acceleration=(0, 2000)),
     {"acceleration": (500, 0)}),
    (lambda: ForceField((0, 0, 200, 120), acceleration=(0, 2000)),
     {"region": (100, 0, 200, 120), "material": 0}),
    (lambda: Vortex((100, 40), radius=40, speed=80), {"center": (60, 30), "rate": 12.0}),
    (lambda: Vortex((100, 40), radius=40, speed=80), {"radius": 20, "inward": 50.0}),
])
def test_a_field_set_after_creation_is_the_one_used(make: Any, change: dict[str, Any]) -> None:
    """Built with one value then set to another steps bit for bit like built with the other
    (the systems used to copy their fields at creation and go on with the old values)."""
    changed = run(make(), change=change)
    built = make()
    for key, value in change.items():
        setattr(built, key, value)
    fresh = type(built)(**{f.name: getattr(built, f.name) for f in fields(built)})
    assert changed == run(fresh)
    assert changed != run(make())


def test_a_change_in_the_middle_of_a_run_takes_effect_at_the_next_step() -> None:
    """Stopping a river after 5 steps is the same as swapping it for a still one then."""
    hashes = []
    for swap in (False, True):
        world, river = pool(), Current((0, 0, 200, 120), velocity=(100, 0))
        current = world.add_system(river, after="external_forces")
        for step in range(10):
            if step == 5 and swap:
                world.remove_system(current)
                world.add_system(Current((0, 0, 200, 120), velocity=(0, 0)),
                                 after="external_forces")
            elif step == 5:
                river.velocity = (0, 0)
            world.step()
        hashes.append(world.state_hash())
    assert hashes[0] == hashes[1]


def test_a_list_edited_in_place_takes_effect() -> None:
    velocity = [100.0, 0.0]
    current = Current((0, 0, 200, 120), velocity=velocity)
    velocity[0] = 0.0
    assert run(current) == run(Current((0, 0, 200, 120), velocity=(0, 0)))


@pytest.mark.parametrize(("make", "error", "match"), [
    (lambda: Current(None, velocity=(1, 0)), TypeError, "Current.region"),
    (lambda: Current((0, 0, 1, 1), velocity=None), TypeError, "Current.velocity"),
    (lambda: Current((0, 0, 1, 1), velocity=5.0), TypeError, "Current.velocity"),
    (lambda: Current("abcd", velocity=(1, 0)), TypeError, "Current.region"),
    (lambda: Current((0, 0, 1, 1), velocity=(1, 0), rate=None), TypeError, "Current.rate"),
    (lambda: Current((0, 0, 1, 1), velocity=(1, 0), material=1.5), TypeError,
     "Current.material"),
    (lambda: Current((0, 0, 1, 1), velocity=(1, 0), material=True), TypeError,
     "Current.material"),
    (lambda: Current((0, 0, 1, 1), velocity=(1, 0), material=-1), ValueError,
     "Current.material"),
    (lambda: ForceField((0, 0, 1, 1), acceleration=None), TypeError,
     "ForceField.acceleration"),
    (lambda: ForceField((0, 0, 1, 1), acceleration=(0, 1), material=[0]), TypeError,
     "ForceField.material"),
    (lambda: ForceField(np.zeros((2, 2)), acceleration=(0, 1)), TypeError,
     "ForceField.region"),
    (lambda: Vortex(None, radius=1, speed=1), TypeError, "Vortex.center"),
    (lambda: Vortex((0, 0), radius=None, speed=1), TypeError, "Vortex.radius"),
    (lambda: Vortex((0, 0), radius=1, speed=float("nan")), ValueError, "Vortex.speed"),
    (lambda: Vortex((0, 0), radius=1, speed=1, inward="x"), TypeError, "Vortex.inward"),
    (lambda: Vortex((0, 0), radius=1, speed=1, name=None), TypeError, "Vortex.name"),
])
def test_bad_values_at_creation_name_the_field(make: Any, error: type[Exception],
                                                match: str) -> None:
    with pytest.raises(error, match=match):
        make()


@pytest.mark.parametrize(("system", "key", "value", "error"), [
    (Current((0, 0, 10, 10), velocity=(1, 0)), "velocity", (float("inf"), 0), ValueError),
    (Current((0, 0, 10, 10), velocity=(1, 0)), "region", (10, 0, 0, 10), ValueError),
    (Current((0, 0, 10, 10), velocity=(1, 0)), "rate", 0.0, ValueError),
    (Current((0, 0, 10, 10), velocity=(1, 0)), "material", 2.0, TypeError),
    (ForceField((0, 0, 10, 10), acceleration=(1, 0)), "acceleration", (1, 2, 3), ValueError),
    (ForceField((0, 0, 10, 10), acceleration=(1, 0)), "region", None, TypeError),
    (Vortex((5, 5), radius=2, speed=1), "center", None, TypeError),
    (Vortex((5, 5), radius=2, speed=1), "radius", -1.0, ValueError),
    (Vortex((5, 5), radius=2, speed=1), "speed", "fast", TypeError),
    (Vortex((5, 5), radius=2, speed=1), "inward", float("nan"), ValueError),
    (Vortex((5, 5), radius=2, speed=1), "rate", -4.0, ValueError),
])
def test_a_bad_value_set_later_is_refused_and_the_old_one_kept(system: Any, key: str,
                                                                value: Any,
                                                                error: type[Exception]) -> None:
    before = getattr(system, key)
    with pytest.raises(error, match=f"{type(system).__name__}.{key}"):
        setattr(system, key, value)
    assert getattr(system, key) == before


def test_an_unknown_material_name_is_refused_at_the_first_step_naming_the_system() -> None:
    world = pool()
    world.add_system(Current((0, 0, 200, 120), velocity=(10, 0), material="lava",
                             name="river"))
    with pytest.raises(ValueError, match=r"Current 'river': material 'lava' is unknown"):
        world.step()
    field = ForceField((0, 0, 200, 120), acceleration=(0, 1), material=9)
    with pytest.raises(ValueError, match=r"ForceField 'force_field': material must be in"):
        field.update(pool(), 0.01)
