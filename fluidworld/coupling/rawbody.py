"""Reading and writing chipmunk's body structs directly: the coupler's fast path to its bodies.

The coupler reads every coupled body's pose and velocity each substep, and its mass, moment,
centre of gravity and type once a step; it writes the impulses back each substep. Through
pymunk's getters that is four to six calls a body, ~0.35 ms a step for 50 bodies inside a World
step (cold caches). Here one kernel reads the fields straight from the ``cpBody`` structs and
one writes the velocities back.

The layout of ``cpBody`` is chipmunk's private business, so nothing is assumed: at import the
module sets distinctive values on probe bodies through pymunk's public API and looks each field
up in the struct's memory. The fast path is on only if every field is found at exactly one
offset, the same on every probe, and a body is dynamic exactly when its mass is finite (how
chipmunk stores the body type); otherwise :data:`OFFSETS` is ``None`` and the coupler uses the
getters. Writing a velocity this way skips what ``cpBodySetVelocity`` adds to the store: waking
a sleeping body (and a debug-build sanity check); the coupler writes this way only while the
space lets no body sleep.
"""

from __future__ import annotations

import numpy as np
import pymunk
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic
from numpy.typing import NDArray

__all__ = ["FIELDS", "OFFSETS", "address", "read_bodies", "write_velocities"]

#: The fields read, in the column order of :func:`read_bodies`' output.
FIELDS = ("x", "y", "angle", "vx", "vy", "w", "mass", "moment", "cog_x", "cog_y")
_SCAN = 24  # doubles of a struct compared with the probes (a cpBody holds more than 30)


def _public(b: pymunk.Body) -> tuple[float, ...]:
    """The FIELDS of a body through pymunk's public API."""
    p, v, c = b.position, b.velocity, b.center_of_gravity
    return (p.x, p.y, b.angle, v.x, v.y, b.angular_velocity, b.mass, b.moment, c.x, c.y)


def _memory(b: pymunk.Body) -> NDArray[np.float64]:
    from pymunk._chipmunk import ffi  # type: ignore[import-not-found]

    raw = ffi.buffer(ffi.cast("char *", b._body), _SCAN * 8)
    return np.frombuffer(bytes(raw), np.float64)


def address(b: pymunk.Body) -> int:
    """The address of a body's ``cpBody`` struct (valid while the Body object lives)."""
    from pymunk._chipmunk import ffi

    return int(ffi.cast("uintptr_t", b._body))


def _discover() -> NDArray[np.int64] | None:
    """Byte offset of each of FIELDS in ``cpBody``, or None if they cannot be told for sure."""
    try:
        probes = []
        for k in range(3):
            b = pymunk.Body(2.5 + k, 3.75 + 2 * k)
            b.center_of_gravity = (0.125 + k, -0.625 - k)
            b.position = (11.5 + 3 * k, -12.25 - k)
            b.angle = 0.8125 + 0.25 * k
            b.velocity = (21.5 - k, 22.75 + 3 * k)
            b.angular_velocity = -31.5 + k
            probes.append(b)
        found = np.full(len(FIELDS), -1, np.int64)
        for f in range(len(FIELDS)):
            hits = None
            for b in probes:
                at = set(np.flatnonzero(_memory(b) == _public(b)[f]).tolist())
                hits = at if hits is None else hits & at
            if not hits or len(hits) != 1:
                return None
            found[f] = hits.pop() * 8
        # the type: dynamic exactly when the mass is finite
        kin = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
        static = pymunk.Body(body_type=pymunk.Body.STATIC)
        for b, dynamic in ((probes[0], True), (kin, False), (static, False)):
            if bool(np.isfinite(_memory(b)[found[6] // 8])) != dynamic:
                return None
        # and a write through the offsets is what the getters see
        b = probes[1]
        _poke_velocities(np.array([address(b)], np.uint64), found, 1.5, -2.25, 0.375)
        if (b.velocity.x, b.velocity.y, b.angular_velocity) != (1.5, -2.25, 0.375):
            return None
        return found
    except Exception:  # another pymunk build: the coupler uses the getters
        return None


@intrinsic
def _peek(typingctx, addr):  # type: ignore[no-untyped-def]
    """The double at an address."""
    if not isinstance(addr, types.Integer):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.load(builder.inttoptr(args[0], ir.DoubleType().as_pointer()))

    return types.float64(addr), codegen


@intrinsic
def _poke(typingctx, addr, value):  # type: ignore[no-untyped-def]
    """Store a double at an address."""
    if not isinstance(addr, types.Integer) or not isinstance(value, types.Float):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        builder.store(args[1], builder.inttoptr(args[0], ir.DoubleType().as_pointer()))
        return context.get_dummy_value()

    return types.void(addr, value), codegen


@njit(cache=True)
def read_bodies(addr, offsets, out):
    """``out[k]``: the FIELDS of the body at ``addr[k]`` (byte ``offsets``: :data:`OFFSETS`)."""
    for k in range(addr.shape[0]):
        for f in range(offsets.shape[0]):
            out[k, f] = _peek(addr[k] + np.uint64(offsets[f]))


@njit(cache=True)
def write_velocities(addr, offsets, dynamic, J, tau, inv_mass, inv_moment):
    """``v += J/m`` and ``w += tau/I`` on the dynamic bodies, in their structs (the same
    operations, in the same order, as the coupler's other ways of writing them)."""
    ovx = np.uint64(offsets[3])
    ovy = np.uint64(offsets[4])
    ow = np.uint64(offsets[5])
    for k in range(addr.shape[0]):
        if dynamic[k]:
            a = addr[k]
            _poke(a + ovx, _peek(a + ovx) + J[k, 0] * inv_mass[k])
            _poke(a + ovy, _peek(a + ovy) + J[k, 1] * inv_mass[k])
            _poke(a + ow, _peek(a + ow) + tau[k] * inv_moment[k])


@njit(cache=True)
def _poke_velocities(addr, offsets, vx, vy, w):
    """Set the velocity of the bodies at ``addr`` (the discovery's write check)."""
    for k in range(addr.shape[0]):
        _poke(addr[k] + np.uint64(offsets[3]), vx)
        _poke(addr[k] + np.uint64(offsets[4]), vy)
        _poke(addr[k] + np.uint64(offsets[5]), w)


#: Byte offsets of FIELDS in ``cpBody``; None where this pymunk's layout could not be told.
OFFSETS = _discover()
