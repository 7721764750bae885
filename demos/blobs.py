"""Blobs: water that holds together, with double density relaxation (``solver = "ddr"``).

Square blocks of water are dropped onto a crate, a ramp and a shallow pool. In the air each
block pulls itself round (the solver's surface tension); it lands as a blob that wobbles and
beads on the crate instead of spraying apart, and rolls down the ramp as a lump. Every other
block is slime, a cohesive material that does not mix with water (``Material.cohesion``): it
gathers into round drops in the pool. SRD has no surface tension: press V to run the same
level with it (or with the constraint solver) and watch the blocks fall as blocks and splash.
J drops another block (eight at most).

Run: ``python -m fluidworld.demos.blobs`` or ``fluidworld play blobs``.
"""

from __future__ import annotations

import sys

from fluidworld import World
from fluidworld.fluid import Material
from fluidworld.fluid.params import default_materials
from fluidworld.levels import Level

#: Cohesive and immiscible with water: it gathers into round drops even in the pool (at 0.3 it
#: was left in strands there after its splash).
SLIME = Material("slime", (120, 200, 60, 255), density=1.1, damping=0.05, mix_group="slime",
                 cohesion=1.0)

BLOCK = 60.0  # side of a dropped block of water
MAX_BLOCKS = 8
SPOTS = (700.0, 250.0, 480.0, 760.0, 330.0, 600.0, 420.0, 200.0)


class Blobs(Level):
    """Blocks of water and slime that round up in flight and land as blobs (DDR's surface
    tension; the slime's cohesion gathers it into drops in the pool)."""

    title = "Blobs"
    help = "DDR water holds together. J: another block. V: the other solvers."
    width = 960.0
    height = 540.0
    solver = "ddr"

    def make_world(self) -> World:
        return World(float(self.width), float(self.height), params=self.make_params(),
                     solver=self.solver, materials=(*default_materials(), SLIME))

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
        material = "slime" if self.blocks % 2 else "water"
        self.blocks += 1
        world.add_fluid_rect(x - BLOCK / 2, 300.0, x + BLOCK / 2, 300.0 + BLOCK,
                             material=material)


def main(argv: list[str] | None = None) -> int:
    """Play this level (extra arguments go to ``fluidworld play``)."""
    from fluidworld.cli import main as cli

    return cli(["play", __file__, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
