"""Balls and flow (the paper's Fig. 4): one ball falls into water at rest, one flies up.

Left basin: a ball is dropped into a pool at rest, plunges and bobs back up (Fig. 4 b-c).
Right basin: a dam-break column runs into a light ball and the flow carries it up the far wall
(Fig. 4 d). J drops the left ball again.

Run: ``python -m fluidworld.demos.ball_in_flow`` or ``fluidworld play ball_in_flow``.
"""

from __future__ import annotations

import sys

from fluidworld import World
from fluidworld.levels import Level

WALL_X = 470.0


class BallInFlow(Level):
    """A ball falling into a pool, and a ball carried up by a dam-break flow."""

    title = "Ball in flow"
    help = "Left: a ball falls in. Right: the flow throws a ball up."
    width = 960.0
    height = 540.0

    def build(self, world: World) -> None:
        world.add_static_segment((WALL_X, 0), (WALL_X, 420), radius=10)
        # left: pool at rest and a falling ball
        world.add_fluid_rect(0, 0, WALL_X - 10, 170)
        self.falling = world.add_ball((WALL_X / 2, 440), 24, density=0.8, sprite="ball")
        # right: a column that collapses towards a light ball at the far wall
        world.add_fluid_rect(WALL_X + 10, 0, WALL_X + 190, 330)
        self.flying = world.add_ball((900, 22), 20, density=0.3, sprite="ball")
        self.bind("J", self.drop_again, "drop the left ball again")

    def drop_again(self, world: World) -> None:
        body = self.falling.body
        body.position = (WALL_X / 2, 440)
        body.velocity = (0.0, 0.0)
        body.angular_velocity = 0.0


def main(argv: list[str] | None = None) -> int:
    """Play this level (extra arguments go to ``fluidworld play``)."""
    from fluidworld.cli import main as cli

    return cli(["play", __file__, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
