"""Raft: a stiff pool under a heavy load, with Sprinkle's constraint fluid (``solver =
"constraint"``).

A raft (density 0.6) floats on a pool; crates (density 0.8) land on it one by one until it rides
deep, its deck near the water line. The constraint solver pushes the load straight back
through the particles' contacts, so the pool under the raft is not squeezed: the water level
beside it rises by the volume the raft displaces. Press V to run the same level with SRD or DDR
(DDR's fluid is more compressible: the raft sits lower). J drops another crate (four at most).

Run: ``python -m fluidworld.demos.raft`` or ``fluidworld play raft``.
"""

from __future__ import annotations

import sys

from fluidworld import World
from fluidworld.levels import Level

WATER_LEVEL = 100.0
RAFT = (400.0, 30.0)  # width x height
CRATE = 36.0
MAX_CRATES = 4  # the four bring the deck to ~95 % under
SPOTS = (300.0, 420.0, 240.0, 480.0)  # balanced about the raft's middle


class Raft(Level):
    """A heavy raft loaded with crates on a stiff constraint-fluid pool."""

    title = "Raft"
    help = "A loaded raft on a pool that does not squeeze. J: another crate. V: other solvers."
    width = 720.0  # the constraint fluid costs ~12x SRD a particle: a small pool (~3,600)
    height = 405.0
    solver = "constraint"

    def build(self, world: World) -> None:
        self.raft = world.add_box((360.0, WATER_LEVEL + 0.5 * RAFT[1]), RAFT, density=0.6,
                                  sprite="plank")
        world.add_fluid_rect(0, 0, self.width, WATER_LEVEL)
        self.crates = 0
        self.every(1.5, self.drop, name="next crate")
        self.bind("J", self.drop, "drop a crate")
        self.say("A loaded raft on Sprinkle's constraint fluid", 4.0)

    def drop(self, world: World) -> None:
        if self.crates >= MAX_CRATES:
            return
        x = SPOTS[self.crates % len(SPOTS)]
        self.crates += 1
        world.add_box((x, 260.0), (CRATE, CRATE), density=0.8, sprite="crate")


def main(argv: list[str] | None = None) -> int:
    """Play this level (extra arguments go to ``fluidworld play``)."""
    from fluidworld.cli import main as cli

    return cli(["play", __file__, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
