"""A pool where crates, balls and barrels of different densities float and an anvil sinks.

The default level. Light bodies (density 0.3-0.7, water is 1) settle with that fraction of
their volume below the surface; the anvil (density 6) goes to the bottom. Grab them with the
left mouse button and throw them in; pour more water with the right button.

Run: ``python -m fluidworld.demos.floating_crates`` or ``fluidworld play floating_crates``.
"""

from __future__ import annotations

import sys

from fluidworld import World
from fluidworld.levels import Level

WATER_LEVEL = 190.0


class FloatingCrates(Level):
    """Pool with floating bodies and a sinking anvil."""

    title = "Floating crates"
    help = "Light bodies float, the anvil sinks."
    width = 960.0
    height = 540.0

    def build(self, world: World) -> None:
        # a pool: the world box is the tank; a low step on the right makes a beach
        world.add_static_poly([(820, 0), (960, 0), (960, 120), (900, 120)])
        world.add_fluid_rect(0, 0, 880, WATER_LEVEL)
        self.floaters = [
            world.add_box((120, 330), (56, 56), density=0.3, sprite="crate"),
            world.add_box((250, 380), (44, 44), density=0.6, sprite="crate", angle=0.4),
            world.add_ball((370, 320), 22, density=0.5, sprite="ball"),
            world.add_box((480, 360), (34, 52), density=0.7, sprite="barrel"),
            world.add_box((700, 330), (130, 16), density=0.5, sprite="plank", angle=-0.2),
        ]
        self.anvil = world.add_box((590, 330), (54, 34), density=6.0, sprite="anvil")
        self.bind("K", self.drop_anvil, "drop an anvil")
        self.say("Drag bodies with the left mouse button, pour water with the right", 5.0)

    def drop_anvil(self, world: World) -> None:
        world.add_box((440, 480), (54, 34), density=6.0, sprite="anvil")


def main(argv: list[str] | None = None) -> int:
    """Play this level (extra arguments go to ``fluidworld play``)."""
    from fluidworld.cli import main as cli

    return cli(["play", __file__, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
