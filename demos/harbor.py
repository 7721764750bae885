"""A harbour: boats float on calm water until the dam gate opens and a wave rolls in.

A reservoir on the left is held back by a gate (a kinematic pymunk body). Three seconds in, a
timer lifts the gate; the released water runs into the harbour as a wave that rocks the boats
and the crates and piles up against the quay. G closes or opens the gate again.

Run: ``python -m fluidworld.demos.harbor`` or ``fluidworld play harbor``.
"""

from __future__ import annotations

import sys

import pymunk

from fluidworld import World
from fluidworld.levels import Level

GATE_X = 300.0
GATE_W = 20.0  # walls that hold water are >= 2 cells thick
GATE_H = 360.0
RESERVOIR_LEVEL = 330.0
HARBOUR_LEVEL = 110.0
GATE_SPEED = 260.0  # world units per second
BOAT_HULL = [(-70, 18), (70, 18), (62, -18), (-62, -18)]  # the boat texture's lower half


class Harbor(Level):
    """Boats, a dam gate that opens after 3 s, and the wave it releases."""

    title = "Harbor"
    help = "The gate opens after 3 s."
    width = 1280.0
    height = 540.0

    def build(self, world: World) -> None:
        # quay on the right, a low sea wall under the gate
        world.add_static_poly([(1150, 0), (1280, 0), (1280, 170), (1150, 170)])
        world.add_static_segment((GATE_X, 0), (GATE_X, 20), radius=GATE_W / 2)
        # the gate: a kinematic box the level moves by setting its velocity
        body = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
        body.position = (GATE_X, GATE_H / 2)
        shape = pymunk.Poly.create_box(body, (GATE_W, GATE_H))
        shape.friction = 0.6
        self.gate = world.attach(shape, kind="gate")
        self.gate_target = GATE_H / 2
        # water: a high reservoir behind the gate and a calm harbour
        world.add_fluid_rect(0, 0, GATE_X - GATE_W / 2, RESERVOIR_LEVEL)
        world.add_fluid_rect(GATE_X + GATE_W / 2, 0, 1150, HARBOUR_LEVEL)
        # boats and cargo
        self.boats = [
            world.add_poly((560, HARBOUR_LEVEL + 16), BOAT_HULL, density=0.35, sprite="boat"),
            world.add_poly((860, HARBOUR_LEVEL + 16), BOAT_HULL, density=0.35, sprite="boat"),
        ]
        world.add_box((580, HARBOUR_LEVEL + 60), (30, 30), density=0.5, sprite="crate")
        world.add_box((1000, HARBOUR_LEVEL + 20), (36, 36), density=0.4, sprite="crate")
        world.add_box((1210, 200), (34, 52), density=0.6, sprite="barrel")
        self.after(3.0, self.open_gate, name="open gate")
        self.bind("G", self.toggle_gate, "open/close the gate")

    # the gate moves at GATE_SPEED towards its target height; update() stops it there
    def open_gate(self, world: World) -> None:
        self.gate_target = GATE_H / 2 + GATE_H - 30.0
        self.say("The gate is open!")

    def toggle_gate(self, world: World) -> None:
        if self.gate_target > GATE_H / 2:
            self.gate_target = GATE_H / 2
        else:
            self.open_gate(world)

    def update(self, world: World, dt: float) -> None:
        body = self.gate.body
        dy = self.gate_target - body.position.y
        step = GATE_SPEED * dt
        if abs(dy) <= step:
            body.velocity = (0.0, 0.0)
            body.position = (GATE_X, self.gate_target)
        else:
            body.velocity = (0.0, GATE_SPEED if dy > 0 else -GATE_SPEED)


def main(argv: list[str] | None = None) -> int:
    """Play this level (extra arguments go to ``fluidworld play``)."""
    from fluidworld.cli import main as cli

    return cli(["play", __file__, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
