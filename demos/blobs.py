"""Blobs: water that holds together, with double density relaxation (``solver = "ddr"``).

Square blocks of water are dropped onto a crate, a ramp and a shallow pool. In the air each
block pulls itself round (the solver's surface tension); it lands as a blob that wobbles and
beads on the crate instead of spraying apart, and rolls down the ramp as a lump. SRD has no
surface tension: press V to run the same level with it (or with the constraint solver) and
watch the blocks fall as blocks and splash. J drops another block (eight at most).

Run: ``python -m fluidworld.demos.blobs`` or ``fluidworld play blobs``.
"""

from __future__ import annotations

import sys

from fluidworld import World
from fluidworld.levels import Level

BLOCK = 60.0  # side of a dropped block of water
MAX_BLOCKS = 8
SPOTS = (700.0, 250.0, 480.0, 760.0, 330.0, 600.0, 420.0, 200.0)


class Blobs(Level):
    """Blocks of water that round up in flight and land as blobs (DDR's surface tension)."""

    title = "Blobs"
    help = "DDR water holds together. J: another block. V: the other solvers."
    width = 960.0
    height = 540.0
    solver = "ddr"

    def build(self, world: World) -> None:
        # the crate first: a fill leaves out what is already there
        world.add_box((720.0, 36.0), (90.0, 70.0), density=2.0, sprite="crate")
        world.add_static_segment((120.0, 200.0), (380.0, 110.0), 4.0)  # a ramp
        world.add_fluid_rect(0, 0, self.width, 40.0)  # a shallow pool to land in
        self.blocks = 0
        self.drop(world)
        self.every(2.5, self.drop, name="next block")
        self.bind("J", self.drop, "drop a block")
        self.say("Water that holds together: double density relaxation", 4.0)

    def drop(self, world: World) -> None:
        if self.blocks >= MAX_BLOCKS:
            return
        x = SPOTS[self.blocks % len(SPOTS)]
        self.blocks += 1
        world.add_fluid_rect(x - BLOCK / 2, 300.0, x + BLOCK / 2, 300.0 + BLOCK)


def main(argv: list[str] | None = None) -> int:
    """Play this level (extra arguments go to ``fluidworld play``)."""
    from fluidworld.cli import main as cli

    return cli(["play", __file__, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
