"""Drawing the world's shapes in the play window, and fitting the camera to a level."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import arcade
import pymunk

if TYPE_CHECKING:
    from ..world import World


__all__ = ["ShapeLayer", "fit_camera"]

STATIC_COLOR = (72, 78, 96, 255)
KINEMATIC_COLOR = (150, 112, 70, 255)
DYNAMIC_COLOR = (190, 190, 200, 255)

# ------------------------------------------------------------------------------ drawing helpers

_MISSING_TEXTURES: set[str] = set()


def _warn_missing_texture(name: str, exc: Exception) -> None:
    """Warn once per texture name that a body is drawn untextured (no such file, or one that is
    no image), naming the file."""
    if name not in _MISSING_TEXTURES:
        _MISSING_TEXTURES.add(name)
        warnings.warn(f"{exc}; drawing the body without it", RuntimeWarning, stacklevel=3)


class ShapeLayer:
    """Draws the shapes that have no sprite: walls, floors, gates, plain bodies.

    A few dozen shapes per frame through arcade's immediate-mode draw functions; segments are
    drawn as capsules (their radius is the wall's half thickness), rounded polygons with their
    radius around the outline, as pymunk collides them.

    Args:
        world: The world whose ``space`` is drawn.
        skip: Shapes never drawn (the world's invisible bounds).
    """

    def __init__(self, world: World, skip: tuple[pymunk.Shape, ...] = ()) -> None:
        self.world = world
        self.skip = set(skip)

    def draw(self, sprited: set[pymunk.Body]) -> None:
        """Draw every shape whose body is not in ``sprited``."""
        for shape in self.world.space.shapes:
            body = shape.body
            if shape in self.skip or body is None or body in sprited or shape.sensor:
                continue
            if body.body_type == pymunk.Body.STATIC:
                color = STATIC_COLOR
            elif body.body_type == pymunk.Body.KINEMATIC:
                color = KINEMATIC_COLOR
            else:
                color = DYNAMIC_COLOR
            _draw_shape(shape, color)


def _draw_shape(shape: pymunk.Shape, color: tuple[int, int, int, int]) -> None:
    body = shape.body
    if isinstance(shape, pymunk.Segment):
        a = body.local_to_world(shape.a)
        b = body.local_to_world(shape.b)
        _draw_capsule(a, b, max(float(shape.radius), 1.0), color)
    elif isinstance(shape, pymunk.Poly):
        pts = [body.local_to_world(v) for v in shape.get_vertices()]
        arcade.draw_polygon_filled([(p.x, p.y) for p in pts], color)
        r = float(shape.radius)
        if r > 0.0:  # a rounded polygon collides (and holds water) r beyond its vertices
            for a, b in zip(pts, pts[1:] + pts[:1], strict=True):
                _draw_capsule(a, b, r, color)
    elif isinstance(shape, pymunk.Circle):
        c = body.local_to_world(shape.offset)
        arcade.draw_circle_filled(c.x, c.y, float(shape.radius), color)


def _draw_capsule(a: pymunk.Vec2d, b: pymunk.Vec2d, r: float,
                  color: tuple[int, int, int, int]) -> None:
    """The points within ``r`` of the segment ``a``-``b``."""
    d = b - a
    if d.length > 1e-9:
        n = d.perpendicular_normal() * r
        arcade.draw_polygon_filled(
            [(a.x + n.x, a.y + n.y), (b.x + n.x, b.y + n.y), (b.x - n.x, b.y - n.y),
             (a.x - n.x, a.y - n.y)], color)
    arcade.draw_circle_filled(a.x, a.y, r, color)
    arcade.draw_circle_filled(b.x, b.y, r, color)


def fit_camera(
    camera: arcade.Camera2D, rect: tuple[float, float, float, float], size: tuple[int, int]
) -> None:
    """Point ``camera`` at the world rectangle ``rect``, scaled to fit a ``size`` viewport."""
    x0, y0, x1, y1 = rect
    w, h = max(size[0], 1), max(size[1], 1)
    camera.position = (0.5 * (x0 + x1), 0.5 * (y0 + y1))
    camera.zoom = min(w / (x1 - x0), h / (y1 - y0))


