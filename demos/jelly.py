"""Jelly: blocks held together by springs between their particles (``solver = "ddr"``).

Two materials beside water: ``jelly`` (elastic: its springs pull it back to the shape it was
filled in) and ``putty`` (plastic: its springs take on the shape it is pressed into). The first
block of each falls onto a crate: the jelly lands, wobbles and sits on its crate as a block; the
putty slumps over its crate's edges and keeps the dent. The next ones fall into the pool.
Press V to run the same level with SRD or the constraint solver: every solver relaxes the
springs, and the water around them behaves as that solver's water. J drops another block (eight
at most).

Run: ``python -m fluidworld.demos.jelly`` or ``fluidworld play jelly``.
"""

from __future__ import annotations

import sys

from fluidworld import World
from fluidworld.fluid import Material
from fluidworld.fluid.params import default_materials
from fluidworld.levels import Level

JELLY = Material("jelly", (235, 70, 130, 255), density=1.1, elasticity=0.5, mix_group="jelly")
PUTTY = Material("putty", (240, 170, 60, 255), density=1.1, elasticity=0.2, plasticity=100.0,
                 mix_group="putty")
BLOCK = (70.0, 50.0)  # a dropped block, width x height
MAX_BLOCKS = 8
DROP_Y = 190.0  # bottom of a dropped block
SPOTS = {"jelly": (300.0, 140.0, 480.0, 860.0), "putty": (660.0, 820.0, 560.0, 60.0)}


class Jelly(Level):
    """Elastic jelly and plastic putty dropped onto a crate (DDR with springs)."""

    title = "Jelly"
    help = "Jelly springs back, putty keeps its dent. J: another block. V: the other solvers."
    width = 960.0
    height = 540.0
    solver = "ddr"

    def make_world(self) -> World:
        return World(float(self.width), float(self.height), params=self.make_params(),
                     solver=self.solver, materials=(*default_materials(), JELLY, PUTTY))

    def build(self, world: World) -> None:
        # the crate first: a fill leaves out what is already there
        for x in (SPOTS["jelly"][0], SPOTS["putty"][0]):
            world.add_box((x, 46.0), (120.0, 90.0), density=3.0, sprite="crate")
        world.add_fluid_rect(0, 0, self.width, 30.0)  # a shallow pool to land in
        self.blocks = 0
        self.drop(world)
        self.every(2.5, self.drop, name="next block")
        self.bind("J", self.drop, "drop a block")
        self.say("Jelly and putty: springs between the particles", 4.0)

    def drop(self, world: World) -> None:
        if self.blocks >= MAX_BLOCKS:
            return
        material = "jelly" if self.blocks % 2 == 0 else "putty"
        spots = SPOTS[material]
        x = spots[(self.blocks // 2) % len(spots)]
        self.blocks += 1
        w, h = BLOCK
        world.add_fluid_rect(x - w / 2, DROP_Y, x + w / 2, DROP_Y + h, material=material)


def main(argv: list[str] | None = None) -> int:
    """Play this level (extra arguments go to ``fluidworld play``)."""
    from fluidworld.cli import main as cli

    return cli(["play", __file__, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
