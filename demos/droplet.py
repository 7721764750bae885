"""A falling droplet (the paper's Fig. 6): a disc of water splashes into a pool at rest.

The drop pushes the pool aside and throws up two liquid sheets. Another drop falls every
4 seconds (six in all); J drops one by hand.

Run: ``python -m fluidworld.demos.droplet`` or ``fluidworld play droplet``.
"""

from __future__ import annotations

import sys

from fluidworld import World
from fluidworld.levels import Level

POOL_DEPTH = 150.0
DROP_RADIUS = 45.0
MAX_DROPS = 6


class Droplet(Level):
    """A disc of water falling into a pool (Crespin et al. 2020, Fig. 6)."""

    title = "Droplet"
    help = "A drop falls every 4 s."
    width = 960.0
    height = 540.0

    def build(self, world: World) -> None:
        world.add_fluid_rect(0, 0, self.width, POOL_DEPTH)
        self.drops = 0
        self.drop(world, x=self.width / 2)
        self.every(4.0, self.drop, name="next drop")
        self.bind("J", self.drop, "drop a drop")

    def drop(self, world: World, x: float | None = None) -> None:
        if self.drops >= MAX_DROPS:
            return
        self.drops += 1
        cx = x if x is not None else [480.0, 300.0, 660.0, 200.0, 760.0, 480.0][self.drops % 6]
        world.add_fluid_circle((cx, 420.0), DROP_RADIUS, velocity=(0.0, -200.0))


def main(argv: list[str] | None = None) -> int:
    """Play this level (extra arguments go to ``fluidworld play``)."""
    from fluidworld.cli import main as cli

    return cli(["play", __file__, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
