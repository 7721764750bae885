"""Two-fluid mixing (the paper's Fig. 7): a slowly pushed band of ink rolls up two vortices.

Gravity is off and the box is full. The middle band (green ink, same density as the blue
water) is pushed gently downwards; it hits the floor and curls into two vortices. T reverses
the push.

Run: ``python -m fluidworld.demos.mixing`` or ``fluidworld play mixing``.
"""

from __future__ import annotations

import sys

from fluidworld import World
from fluidworld.levels import Level

INK = 1  # material id of the second fluid
PUSH = 60.0  # downward acceleration on the ink, world units/s^2


class Mixing(Level):
    """Blue water and green ink, zero gravity, the ink pushed down (Crespin et al. 2020, Fig. 7)."""

    title = "Mixing"
    help = "Gravity off; the green band is pushed down. T reverses the push."
    width = 560.0
    height = 420.0
    gravity = (0.0, 0.0)
    render_mode = "sprites"
    pour_material = INK

    def build(self, world: World) -> None:
        band = (self.width / 3, 2 * self.width / 3)
        world.add_fluid_rect(0, 0, band[0], self.height, material=0)
        world.add_fluid_rect(band[0], 0, band[1], self.height, material=INK)
        world.add_fluid_rect(band[1], 0, self.width, self.height, material=0)
        self.push = PUSH
        world.fluid.material_accelerations[INK] = (0.0, -self.push)
        self.bind("T", self.reverse, "reverse the push")

    def reverse(self, world: World) -> None:
        self.push = -self.push
        world.fluid.material_accelerations[INK] = (0.0, -self.push)
        self.say("pushing " + ("down" if self.push > 0 else "up"))


def main(argv: list[str] | None = None) -> int:
    """Play this level (extra arguments go to ``fluidworld play``)."""
    from fluidworld.cli import main as cli

    return cli(["play", __file__, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
