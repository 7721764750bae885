"""A faucet pours into a basin; the water runs down a ramp into a drain that counts it.

The faucet emits exactly ``rate`` particles per second; the drain removes (and counts) every
particle that reaches it. The status line shows both counters and what is in between. T turns
the faucet on and off; UP and DOWN change its flow.

Run: ``python -m fluidworld.demos.faucet_and_drain`` or ``fluidworld play faucet_and_drain``.
"""

from __future__ import annotations

import sys

from fluidworld import World
from fluidworld.levels import Level

RATE = 360.0


class FaucetAndDrain(Level):
    """A faucet, a basin that overflows onto a ramp, and a counting drain."""

    title = "Faucet and drain"
    help = "Water in = water out + water in between."
    width = 960.0
    height = 540.0

    def build(self, world: World) -> None:
        # basin (left), ramp down to the right, sink with a drain in the floor
        # walls that hold water are >= 2 cells (20 units) thick
        world.add_static_segment((40, 300), (40, 120), radius=10)
        world.add_static_segment((40, 120), (330, 120), radius=10)
        world.add_static_segment((330, 120), (330, 230), radius=10)
        world.add_static_segment((330, 215), (850, 70), radius=10)  # ramp, from the basin's rim
        world.add_static_segment((0, 40), (850, 10), radius=10)  # the floor slopes to the drain
        world.add_fluid_rect(50, 130, 320, 195)
        self.faucet = world.add_emitter((150, 480), (0.0, -1.0), speed=120.0, rate=RATE,
                                        width=16.0)
        self.drain = world.add_drain((860, 0, 960, 30))
        world.add_ball((200, 240), 16, density=0.5, sprite="ball")
        world.add_box((260, 240), (26, 26), density=0.4, sprite="crate")
        self.bind("T", self.toggle, "faucet on/off")
        self.bind("UP", lambda w: self.set_rate(self.faucet.rate + 120), "more flow")
        self.bind("DOWN", lambda w: self.set_rate(self.faucet.rate - 120), "less flow")

    def toggle(self, world: World) -> None:
        self.faucet.enabled = not self.faucet.enabled
        self.say("faucet " + ("on" if self.faucet.enabled else "off"))

    def set_rate(self, rate: float) -> None:
        self.faucet.rate = min(max(rate, 0.0), 1200.0)
        self.say(f"faucet: {self.faucet.rate:.0f} particles/s")

    def update(self, world: World, dt: float) -> None:
        self.status = (f"emitted {self.faucet.emitted}   drained {self.drain.removed}   "
                       f"in the scene {world.fluid.count}")


def main(argv: list[str] | None = None) -> int:
    """Play this level (extra arguments go to ``fluidworld play``)."""
    from fluidworld.cli import main as cli

    return cli(["play", __file__, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
