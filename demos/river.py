"""A river written as systems: a current carries boats downstream past a whirlpool, and a
scoring system counts every boat that reaches the harbour on the right.

The mechanics are three systems (``World.add_system``), each a stage of the step that shows in
the debug overlay's timings: ``current`` (``fluidworld.systems.Current``: the surface water is
drawn downstream), ``whirlpool`` (``fluidworld.systems.Vortex``) and ``harbour`` (this file: a
boat whose centre is past the harbour line scores and is launched again upstream). K launches
another boat. The river runs through: a spring upstream feeds it and a weir at the end (a
drain over the river's level) lets the water on, so the current does not pile it up against
the right wall.

Run: ``python -m fluidworld.demos.river`` or ``fluidworld play river``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from fluidworld import World
from fluidworld.levels import Level
from fluidworld.systems import Current, Vortex
from fluidworld.world import BodyHandle

WATER = 150.0
HARBOUR_X = 1100.0
SPRING_RATE = 300.0  # particles/s: the river's flow
LAUNCH_X = 220.0  # where boats are put (back) in, downstream of the spring


@dataclass
class Boat:
    """The component that marks a boat and counts its trips."""

    trips: int = 0


class Harbour:
    """A system: boats past the harbour line score and start again upstream."""

    name = "harbour"

    def __init__(self, level: River) -> None:
        self.level = level

    def update(self, world: World, dt: float) -> None:
        for boat in world.entities_with(Boat, of=BodyHandle):
            x, _ = boat.position
            if x > HARBOUR_X:
                boat.data[Boat].trips += 1
                self.level.score += 1
                self.level.status = f"boats home: {self.level.score}"
                body = boat.body
                # dropped back in upstream, clear of the water and of the spring's stream
                body.position = (LAUNCH_X, WATER + 90.0)
                body.velocity = (0.0, 0.0)
                body.angular_velocity = 0.0


class River(Level):
    """Boats carried by a current past a whirlpool; a system scores them at the harbour."""

    title = "River"
    help = "The current carries the boats; the harbour counts them. K: another boat."
    width = 1280.0
    height = 540.0

    def build(self, world: World) -> None:
        # the rock first: a fill skips what is already there
        world.add_static_poly([(560, 0), (720, 0), (680, 40), (600, 40)])  # a rock on the bed
        world.add_fluid_rect(0, 0, 1280, WATER)
        world.add_system(Current((0, WATER - 50, 1280, 540), velocity=(70, 0), rate=12.0),
                         after="external_forces")
        world.add_system(Vortex((880, 70), radius=60, speed=60, rate=6.0),
                         after="external_forces", name="whirlpool")
        # the river runs through: a spring upstream feeds it, a weir at the harbour end lets
        # what rises above the river's level flow away (an overflow drain)
        world.add_emitter((30.0, WATER + 25.0), (1.0, -0.4), 80.0, SPRING_RATE, width=40.0)
        world.add_drain((1240.0, WATER + 5.0, 1280.0, 540.0))
        self.score = 0
        world.add_system(Harbour(self), after="events", every_substep=False)
        for x in (120.0, 360.0):
            self.launch(world, x)
        self.bind("K", lambda w: self.launch(w, LAUNCH_X), "another boat")
        self.guide_line((HARBOUR_X, WATER - 30), (HARBOUR_X, WATER + 80), (250, 220, 120, 200))
        self.say("The river carries the boats to the harbour", 4.0)

    def launch(self, world: World, x: float) -> None:
        boat = world.add_box((x, WATER + 60), (90, 18), density=0.45, sprite="crate")
        boat.data[Boat] = Boat()


def main(argv: list[str] | None = None) -> int:
    """Play this level (extra arguments go to ``fluidworld play``)."""
    from fluidworld.cli import main as cli

    return cli(["play", __file__, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
