"""The World's body helpers: static walls, dynamic boxes, balls and polygons, and attaching
the user's own pymunk bodies (a part of :class:`~fluidworld.world.World`, split from it by
concept)."""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pymunk
from numpy.typing import ArrayLike

from ._args import _convex_parts, _points, _vec, warn_caller
from .coupling.sampling import contains, geometry_of, local_bounds, shape_area
from .entities import BodyHandle, Entity
from .fluid.params import _finite, _positive
from .replay import recorded

if TYPE_CHECKING:
    from .coupling import Coupler
    from .fluid import FluidSystem

__all__ = ["BodyHelpers", "REACH"]

#: How far beyond the domain a shape may reach, in domain sizes (its largest side).
REACH = 10.0


def _check_sprite(sprite: Any) -> None:
    """Refuse, by name, a ``sprite`` a renderer could not load: it must be ``None``, a texture
    name or path (a non-empty ``str`` or ``os.PathLike``) or a texture object (an
    ``arcade.Texture``: anything with an ``image``). Checked when the body is made, not at the
    first frame that draws it."""
    if sprite is None or isinstance(sprite, os.PathLike) or hasattr(sprite, "image"):
        return
    if not isinstance(sprite, str) or not sprite:
        raise TypeError(f"sprite must be None, a texture name or path (a non-empty str or "
                        f"os.PathLike) or an arcade.Texture, got {sprite!r}")


def _sprite_kind(sprite: Any) -> str:
    """The entity kind a body gets from its sprite: the texture's name (``"crate"``, the stem of
    a path), ``"body"`` without one."""
    if isinstance(sprite, str):
        return sprite
    if isinstance(sprite, os.PathLike):
        return os.path.splitext(os.path.basename(os.fspath(sprite)))[0] or "body"
    return "body"


class BodyHelpers:
    """Static and dynamic bodies of :class:`~fluidworld.world.World`."""

    fluid: FluidSystem
    space: pymunk.Space
    coupler: Coupler
    bounds: tuple[pymunk.Shape, ...]
    _body_refs: dict[pymunk.Body, int]
    _slots: list[Entity | None]
    attach_static: bool
    _shapes_seen: frozenset[int]
    _waiting: list[pymunk.Shape]
    _refused: set[pymunk.Shape]

    if TYPE_CHECKING:
        def _register(self, e: Entity) -> Entity: ...

    # ------------------------------------------------------------------ bodies
    def _make_bounds(self) -> tuple[pymunk.Shape, ...]:
        p = self.fluid.params
        r = p.a0
        w, h = p.width, p.height
        sb = self.space.static_body
        segs = (((-r, -r), (w + r, -r)), ((-r, h + r), (w + r, h + r)),
                ((-r, -r), (-r, h + r)), ((w + r, -r), (w + r, h + r)))
        shapes = tuple(pymunk.Segment(sb, a, b, r) for a, b in segs)
        for s in shapes:
            s.friction = 0.6
        self.space.add(*shapes)
        return shapes

    def _check_reach(self, shapes: Sequence[pymunk.Shape]) -> None:
        """Refuse shapes that reach absurdly far (more than :data:`REACH` domain sizes beyond
        the domain): the coupling samples outlines and interiors, so a segment a billion units
        long would take all the memory there is."""
        p = self.fluid.params
        far = REACH * max(p.width, p.height)
        for s in shapes:
            bb = s.cache_bb()
            ext = (bb.left, bb.bottom, bb.right, bb.top)
            if not all(math.isfinite(v) for v in ext) or (
                    bb.left < -far or bb.bottom < -far or bb.right > p.width + far
                    or bb.top > p.height + far):
                raise ValueError(
                    f"the shape reaches {ext}, more than {far:g} beyond the domain "
                    f"(check its position, size, radius, a/b or vertices)")
            if s.body is not None and s.body.body_type == pymunk.Body.STATIC:
                self._check_room(s)

    def _check_room(self, shape: pymunk.Shape) -> None:
        """Refuse a static shape that covers the whole domain: the fluid has nowhere to be
        (all of it was pushed into a corner, and each step took ~20 s)."""
        p = self.fluid.params
        e = 0.25 * self.fluid.r_l
        corners = np.array([(e, e), (p.width - e, e), (p.width - e, p.height - e),
                            (e, p.height - e)])
        b = shape.body
        c, sn = math.cos(b.angle), math.sin(b.angle)
        d = corners - (b.position.x, b.position.y)
        local = np.column_stack([c * d[:, 0] + sn * d[:, 1], -sn * d[:, 0] + c * d[:, 1]])
        if contains(geometry_of(shape), local).all():
            raise ValueError(
                f"the static shape covers the whole domain (0, 0)-({p.width:g}, {p.height:g}): "
                "it leaves the fluid no room (check its position, size, radius, a/b or "
                "vertices)")

    def _handle(self, body: pymunk.Body, shapes: Sequence[pymunk.Shape], kind: str,
                sprite: str | None, owns_body: bool,
                sensors: Sequence[pymunk.Shape] = ()) -> BodyHandle:
        _check_sprite(sprite)
        if not isinstance(kind, str) or not kind:
            raise TypeError(f"kind must be a non-empty string, got {kind!r}")
        to_add: list[Any] = []
        if body is not self.space.static_body and body not in self.space.bodies:
            to_add.append(body)
        to_add.extend(s for s in (*shapes, *sensors) if s not in self.space.shapes)
        for s in shapes:
            geometry_of(s)  # TypeError for unsupported shapes, first
        self._check_reach(shapes)
        if to_add:
            self.space.add(*to_add)
        for s in shapes:
            self.coupler.add_shape(s)
        h = BodyHandle(kind=kind, body=body, shapes=tuple(shapes), sprite=sprite,
                       _owns_body=owns_body, _sensors=tuple(s for s in sensors if s in to_add),
                       _world=self)
        self._measure_handle(h)
        self._body_refs[body] = self._body_refs.get(body, 0) + 1
        return self._register(h)  # type: ignore[return-value]

    def _adopt_static_shapes(self) -> None:
        """Couple what the game put into the Space since the last step: its static shapes that
        nobody attached (see ``attach_static``), and shapes added to a body coupled already
        (they join its handle). Sensors hold no water; one the game turns solid later is
        coupled then. The Space's shapes are compared as a set, not counted: a wall put back
        where another was taken out in the same frame was missed while the count stayed."""
        shapes = self.space.shapes
        seen = frozenset(map(id, shapes))
        if seen == self._shapes_seen and all(s.sensor for s in self._waiting):
            return
        self._shapes_seen = seen
        self._waiting = []
        coupled_shapes = self.coupler.shapes
        known = set(coupled_shapes) | set(self.bounds) | self._refused
        coupled = {s.body for s in coupled_shapes if s.body is not None}
        for s in shapes:
            body = s.body
            if s in known or body is None:
                continue
            static = body.body_type == pymunk.Body.STATIC
            if not (static and self.attach_static) and body not in coupled:
                continue
            if s.sensor:
                self._waiting.append(s)
            elif static:
                self._adopt(s)
            else:
                self._join_handle(s)

    def _adopt(self, s: pymunk.Shape) -> None:
        """Couple a static shape of the Space as a wall, or warn once and leave it out."""
        try:
            self.attach(s, kind="wall")
        except (TypeError, ValueError) as exc:
            warnings.warn(f"the static shape {s!r} in the Space holds no water: {exc}",
                          RuntimeWarning, stacklevel=4)
            self._refused.add(s)

    def _join_handle(self, s: pymunk.Shape) -> None:
        """Couple a shape the game added to a body coupled already; it joins the body's
        handle (removing the handle takes it too)."""
        try:
            geometry_of(s)
        except TypeError as exc:
            warnings.warn(f"the shape {s!r} added to a coupled body holds no water: {exc}",
                          RuntimeWarning, stacklevel=4)
            self._refused.add(s)
            return
        self.coupler.add_shape(s)
        h = next((h for h in self._body_handles() if h.body is s.body), None)
        if h is not None:
            h.shapes = (*h.shapes, s)
            self._measure_handle(h)

    def reshape(self, shape: pymunk.Shape) -> None:
        """Couple a shape again after you changed its geometry (pymunk's
        ``unsafe_set_vertices``, ``unsafe_set_radius``, ``unsafe_set_endpoints``): the world
        samples a shape when it is attached, so until then the water keeps to the old outline.
        At the next step the fluid inside the new outline is put out of it, as for a body put
        into water; the shape's handle gets its new area and size.

        Raises:
            TypeError: not a pymunk Circle, Segment or Poly. ValueError: the shape is not
                coupled (attach it).
        """
        self.coupler.reshape(shape)
        for h in self._body_handles():
            if shape in h.shapes:
                self._measure_handle(h)

    def _body_handles(self) -> list[BodyHandle]:
        """The live body handles, in id order."""
        return [h for h in self._slots
                if isinstance(h, BodyHandle) and not getattr(h, "_dead", False)]

    @staticmethod
    def _measure_handle(h: BodyHandle) -> None:
        """A handle's area and bounding-box size from its shapes as they are now."""
        geos = [geometry_of(s) for s in h.shapes]
        boxes = np.array([local_bounds(g) for g in geos])
        h.size = (float(boxes[:, 2].max() - boxes[:, 0].min()),
                  float(boxes[:, 3].max() - boxes[:, 1].min()))
        h.area = float(sum(shape_area(g) for g in geos))

    @staticmethod
    def _surface(shape: pymunk.Shape, friction: float, elasticity: float) -> None:
        # chipmunk aborts the whole process on a negative value: refuse it here, by name
        f = _finite("friction", friction)
        if f < 0.0:
            raise ValueError(f"friction must be >= 0, got {friction!r}")
        e = _finite("elasticity", elasticity)
        if not 0.0 <= e <= 1.0:
            raise ValueError(f"elasticity must be in [0, 1], got {elasticity!r}")
        shape.friction = f
        shape.elasticity = e

    @recorded
    def add_static_segment(
        self, a: tuple[float, float], b: tuple[float, float], radius: float = 2.0,
        friction: float = 0.8, elasticity: float = 0.0, kind: str = "wall",
    ) -> BodyHandle:
        """A static wall, floor or ramp from ``a`` to ``b`` with thickness ``2 * radius``."""
        a = _vec("a", a)
        b = _vec("b", b)
        r = _finite("radius", radius)
        if r < 0:
            raise ValueError(f"radius must be >= 0, got {radius!r}")
        s = pymunk.Segment(self.space.static_body, a, b, r)
        self._surface(s, friction, elasticity)
        return self._handle(self.space.static_body, [s], kind, None, False)

    @recorded
    def add_static_poly(
        self, vertices: ArrayLike, radius: float = 0.0, friction: float = 0.8,
        elasticity: float = 0.0, kind: str = "wall",
    ) -> BodyHandle:
        """A static polygon (world coordinates). Vertices in order around a concave outline (an
        L, a U, a cup) become several convex shapes that cover it; otherwise pymunk takes the
        convex hull of the points."""
        v = _points("vertices", vertices, 3)
        r = _finite("radius", radius)
        if r < 0:
            raise ValueError(f"radius must be >= 0, got {radius!r}")
        shapes = [pymunk.Poly(self.space.static_body, part, radius=r)
                  for part in _convex_parts("vertices", v)]
        for s in shapes:
            self._surface(s, friction, elasticity)
        return self._handle(self.space.static_body, shapes, kind, None, False)

    def _dynamic(self, shape_fn: Callable[[pymunk.Body], list[pymunk.Shape]], position: Any,
                 angle: float, density: float, friction: float, elasticity: float,
                 sprite: str | None, kind: str | None) -> BodyHandle:
        pos = _vec("position", position)
        ang = _finite("angle", angle)
        dens = _positive("density", density)
        body = pymunk.Body()
        body.position = pos
        body.angle = ang
        shapes = shape_fn(body)
        for s in shapes:
            s.density = dens
        mass = sum(s.mass for s in shapes)
        moment = sum(s.moment for s in shapes)
        # a vanishing or overflowing mass (a tiny shape, an absurd density) would give pymunk a
        # NaN pose at the first step: refuse it here, by the arguments that make it
        if not (1e-12 < mass < 1e30 and 0.0 < moment < 1e300):
            area = sum(s.area for s in shapes)
            raise ValueError(
                f"the body's mass (density x area = {dens:g} x {area:g}) must lie in "
                "(1e-12, 1e30): check its size/radius and density")
        for s in shapes:
            self._surface(s, friction, elasticity)
        _check_sprite(sprite)
        self._warn_outside(pos)
        return self._handle(body, shapes, kind or _sprite_kind(sprite), sprite, True)

    def _warn_outside(self, pos: tuple[float, float]) -> None:
        """Warn that a body put outside the domain's walls (``bounds``) will be inside them
        after its first step: the walls' contact moves it in (a body dropped from above the
        screen appears at the top instead)."""
        p = self.fluid.params
        if self.bounds and not (0.0 <= pos[0] <= p.width and 0.0 <= pos[1] <= p.height):
            warn_caller(
                f"position {pos} is outside the world's walls (0, 0)-({p.width:g}, "
                f"{p.height:g}); the walls will move the body inside at the first step "
                "(World(..., bounds=False) has none)")

    @recorded
    def add_box(
        self, position: tuple[float, float], size: tuple[float, float], density: float = 0.5,
        angle: float = 0.0, radius: float = 0.0, friction: float = 0.6,
        elasticity: float = 0.1, sprite: str | None = "crate", kind: str | None = None,
    ) -> BodyHandle:
        """A dynamic box of ``size = (w, h)`` centred at ``position``.

        Args:
            density: Mass per unit area, in the fluid's units (water is 1).
            radius: Corner rounding (adds to the size, as in pymunk).
            sprite: Texture name for renderers ("crate", "plank", "anvil", ...).
            kind: Entity kind (default: the sprite name).
        """
        w, h = _vec("size", size)
        if w <= 0 or h <= 0:
            raise ValueError(f"size must be positive, got {size!r}")
        r = _finite("radius", radius)
        if not 0.0 <= r <= 0.5 * min(w, h):
            raise ValueError(f"radius must be in [0, min(size) / 2 = {0.5 * min(w, h):g}], "
                             f"got {radius!r}")
        return self._dynamic(lambda b: [pymunk.Poly.create_box(b, (w, h), radius=r)], position,
                             angle, density, friction, elasticity, sprite, kind)

    @recorded
    def add_ball(
        self, position: tuple[float, float], radius: float, density: float = 0.5,
        angle: float = 0.0, friction: float = 0.6, elasticity: float = 0.2,
        sprite: str | None = "ball", kind: str | None = None,
    ) -> BodyHandle:
        """A dynamic ball of ``radius`` centred at ``position``."""
        r = _positive("radius", radius)
        return self._dynamic(lambda b: [pymunk.Circle(b, r)], position, angle, density,
                             friction, elasticity, sprite, kind)

    @recorded
    def add_poly(
        self, position: tuple[float, float], vertices: ArrayLike, density: float = 0.5,
        angle: float = 0.0, radius: float = 0.0, friction: float = 0.6,
        elasticity: float = 0.1, sprite: str | None = "boat", kind: str | None = None,
    ) -> BodyHandle:
        """A dynamic polygon; ``vertices`` are body-local. Vertices in order around a concave
        outline (a hull with a cabin, a cup) become several convex shapes on the one body;
        otherwise pymunk takes the convex hull of the points."""
        v = _points("vertices", vertices, 3)
        parts = _convex_parts("vertices", v)
        r = _finite("radius", radius)
        if r < 0:
            raise ValueError(f"radius must be >= 0, got {radius!r}")
        return self._dynamic(lambda b: [pymunk.Poly(b, p, radius=r) for p in parts],
                             position, angle, density, friction, elasticity, sprite, kind)

    def _refuse_attached(self, body: pymunk.Body, shapes: list[pymunk.Shape]) -> None:
        """A shape coupled twice would be removed under its other handle (pymunk then turned
        the body NaN); pymunk aborts on a body or shape that is in another Space."""
        for s in shapes:
            if self.coupler.is_coupled(s):
                owner = next((e.id for e in self._slots if isinstance(e, BodyHandle)
                              and s in e.shapes), None)
                raise ValueError(f"body_or_shape has a shape attached already (entity "
                                 f"{owner}): remove that handle first, or keep using it")
        for space in (body.space, *(s.space for s in shapes)):
            if space is not None and space is not self.space:
                raise ValueError("body_or_shape is in another pymunk Space: remove it from "
                                 "that Space first")

    def attach(
        self, body_or_shape: pymunk.Body | pymunk.Shape, kind: str = "body",
        sprite: str | None = None,
    ) -> BodyHandle:
        """Couple a pymunk body (all its shapes) or one shape that you made yourself.

        Static bodies become walls, kinematic ones push the fluid, dynamic ones go both ways.
        The body and shapes are added to the space if they are not in it yet. Sensor shapes
        (``shape.sensor``) hold no water: a body's sensors are left out of the coupling (a
        crate's pickup radius neither clears the water nor floats the crate), and a coupled
        shape the game makes a sensor later holds none until it is solid again (read each
        step). A shape the game adds to a coupled body later is coupled at the next step and
        joins the body's handle. A shape's geometry is sampled here: after changing it
        (pymunk's ``unsafe_set_vertices``, ``unsafe_set_radius``, ``unsafe_set_endpoints``),
        call :meth:`reshape`.

        Raises:
            TypeError: not a pymunk Body or Shape, or an unsupported shape type.
            ValueError: a shape without a body, a body without shapes, a sensor shape or a
                body with only sensor shapes, a non-finite pose, a dynamic body without
                mass, a shape attached already, or a body or shape in another Space.
        """
        if isinstance(body_or_shape, pymunk.Shape):
            shapes = [body_or_shape]
            body = body_or_shape.body
            if body is None:
                raise ValueError("body_or_shape is a shape without a body; give it a pymunk.Body")
        elif isinstance(body_or_shape, pymunk.Body):
            body = body_or_shape
            shapes = sorted(body.shapes, key=id)
            if not shapes:
                raise ValueError("body_or_shape is a body without shapes; add a shape first")
        else:
            raise TypeError(
                f"body_or_shape must be a pymunk.Body or pymunk.Shape, got "
                f"{type(body_or_shape).__name__}"
            )
        sensors = [s for s in shapes if s.sensor]
        shapes = [s for s in shapes if not s.sensor]
        if not shapes:
            raise ValueError("body_or_shape is a sensor shape or a body with only sensor "
                             "shapes: sensors hold no water (set sensor=False to couple it)")
        for s in shapes:
            geometry_of(s)
        self._refuse_attached(body, shapes)
        p = body.position
        v = body.velocity
        if not all(math.isfinite(x) for x in (p.x, p.y, body.angle, v.x, v.y,
                                               body.angular_velocity)):
            raise ValueError("body_or_shape has a non-finite position, angle or velocity")
        if body.body_type == pymunk.Body.DYNAMIC:
            added = body not in self.space.bodies  # pymunk sums its shapes' mass once added
            m = body.mass + sum(s.mass for s in shapes if s not in body.shapes)
            if added and not m > 0 and not any(s.density > 0 or s.mass > 0 for s in shapes):
                raise ValueError("body_or_shape is a dynamic body without mass or density")
            # pymunk turns a zero moment's spin NaN at the next step (0 torque x infinite 1/I),
            # as a circle of radius 0 given a mass has
            if not body.moment > 0 and not (added and sum(s.moment for s in shapes) > 0):
                raise ValueError(
                    f"body_or_shape is a dynamic body with moment {body.moment!r}; it must be "
                    "> 0 (pymunk.moment_for_box/circle/poly, inf for no rotation) or come "
                    "from its shapes' density and size (a point mass has none)")
        return self._handle(body, shapes, kind, sprite, body not in self.space.bodies, sensors)
