"""Dam break (the paper's Fig. 3): a column of water collapses and sweeps across the tank.

A square column stands in the lower-left corner, held by nothing; it falls, runs along the
floor, climbs the right wall and breaks back. A few crates wait in its path. Press R to run it
again.

Run: ``python -m fluidworld.demos.dam_break`` or ``fluidworld play dam_break``.
"""

from __future__ import annotations

import sys

from fluidworld import World
from fluidworld.levels import Level


class DamBreak(Level):
    """A collapsing water column (Crespin et al. 2020, Fig. 3) with crates downstream."""

    title = "Dam break"
    help = "The column collapses; R runs it again."
    width = 960.0
    height = 540.0

    def build(self, world: World) -> None:
        world.add_fluid_rect(0, 0, 300, 380)
        world.add_static_poly([(600, 0), (700, 0), (700, 30), (600, 30)])  # a low step
        world.add_box((760, 30), (40, 40), density=0.5, sprite="crate")
        world.add_box((840, 30), (40, 40), density=0.5, sprite="crate")
        world.add_ball((900, 30), 20, density=0.5, sprite="ball")


def main(argv: list[str] | None = None) -> int:
    """Play this level (extra arguments go to ``fluidworld play``)."""
    from fluidworld.cli import main as cli

    return cli(["play", __file__, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
