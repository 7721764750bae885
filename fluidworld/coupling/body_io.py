"""The coupler's traffic with pymunk's bodies: poses and velocities read, impulses written.

:class:`BodyIO` is the part of :class:`~fluidworld.coupling.Coupler` that touches pymunk bodies
(only through pymunk's public API): ``pymunk.batch`` reads and writes every body of a space in
one call where this pymunk has it (6.6+, 7.x), body by body through ``Body``'s properties
otherwise; both ways give the same doubles. Masses, moments and centres of gravity are read
once per step (the centre of gravity only when the mass or moment changed). The handles on the
bodies (batch buffers, ids) are per process: they are left out of pickles and made again.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pymunk
from numpy.typing import NDArray

from . import kernels as K

if TYPE_CHECKING:
    from ..fluid import FluidSystem

__all__ = ["ADDED_MASS", "DEFER_SHARE", "SPEED_SLACK", "BodyIO"]

#: The least mass a body touching the fluid answers to the fluid with, as a share of the fluid
#: it has under the surface (``ADDED_MASS x rho x submerged area``; a cylinder's true added mass
#: is all of it). Bodies of at least this density move by their own mass; a lighter one let go
#: under water rose at ~8 g and was flung out (a 40 x 40 crate of 0.05: overflow; pymunk's
#: tutorial ball: 10,853 units/s), with it at ~4 g, calm (162 and 81 units/s at most).
ADDED_MASS = 0.25
#: How much faster than it was the fluid may make a body in a substep, in ``|g| h`` (beyond
#: twice the particles' speed limit; :meth:`BodyIO._limit_speed`): the support against gravity
#: is 1, a light body rising at the added mass's limit 1 / ADDED_MASS = 4.
SPEED_SLACK = 8.0
#: The largest change of velocity in a substep, as a share of the particles' speed limit
#: (:meth:`~fluidworld.fluid.FluidSystem.speed_limit`, 4,800 units/s at the game preset), whose
#: part into a contact :meth:`BodyIO.defer_into_contacts` hands pymunk as a force: loads that
#: press a resting body into a shape change it by a few ``g h`` (7.5 units/s at the game
#: preset); a fluid packed until it bursts (a faucet run into a sealed box) by thousands, and
#: as a force that went round the speed limit's reckoning (a box at 11,300 units/s against
#: the limit's 9,600).
DEFER_SHARE = 0.1


def _batch_reader() -> Any:
    """``pymunk.batch`` (6.6+, 7.x): every body of a space read or written in one C call,
    pymunk's public API for bulk body access. ``None`` where this pymunk has no batch module;
    the coupler then reads and writes body by body through ``Body``'s properties."""
    try:
        import pymunk.batch as batch

        return batch
    except Exception:
        return None


_BATCH = _batch_reader()
_BATCH_FIELDS = (None if _BATCH is None else _BATCH.BodyFields.BODY_ID
                 | _BATCH.BodyFields.POSITION | _BATCH.BodyFields.ANGLE
                 | _BATCH.BodyFields.VELOCITY | _BATCH.BodyFields.ANGULAR_VELOCITY)
#: What the impulses change, written back for the whole space in one call.
_BATCH_SET_FIELDS = (None if _BATCH is None else _BATCH.BodyFields.VELOCITY
                     | _BATCH.BodyFields.ANGULAR_VELOCITY)


def _contact_normal(arbiter: pymunk.Arbiter, body: pymunk.Body,
                    out: list[tuple[float, float, pymunk.Body | None]]) -> None:
    """``each_arbiter`` callback: for a contact of ``body``, append the unit normal pointing
    from ``body`` into the other shape and the other body (``None`` where it is static or
    kinematic: it does not give way). Sensors and pairs without contact points hold nothing."""
    a, b = arbiter.shapes
    other = b if a.body is body else a
    if other.body is None or a.sensor or b.sensor or not arbiter.contact_point_set.points:
        return
    n = arbiter.normal
    length = math.hypot(n.x, n.y)
    if length == 0.0:
        return
    sign = 1.0 if a.body is body else -1.0
    partner = other.body if other.body.body_type == pymunk.Body.DYNAMIC else None
    out.append((sign * n.x / length, sign * n.y / length, partner))


class BodyIO:
    """Mixin of :class:`~fluidworld.coupling.Coupler`: the bodies' state in, impulses out.

    The coupler's ``_build`` makes the arrays it reads and writes (declared here for the type
    checker) and calls :meth:`_bind_bodies`.
    """

    bodies: list[pymunk.Body]
    fluid: FluidSystem
    dynamic: NDArray[np.bool_]
    _n_wall: int
    _out_owner: NDArray[np.int64]
    state: NDArray[np.float64]
    _raw: NDArray[np.float64]
    _cog_local: NDArray[np.float64]
    _inv_mass: NDArray[np.float64]
    _floor_mass: NDArray[np.float64]
    _floor_moment: NDArray[np.float64]
    _inv_moment: NDArray[np.float64]
    _mass_real: NDArray[np.float64]
    _inv_apply: NDArray[np.float64]
    _rho_table: NDArray[np.float64]
    _batch_vel: NDArray[np.float64]
    submerged_area: NDArray[np.float64]
    _records: dict[pymunk.Shape, Any]  # the coupler's shape records
    #: The coupled shapes that were out of their Space at the last full read.
    _out_of_space: tuple[pymunk.Shape, ...] = ()

    def _build(self) -> None:  # the coupler's (.layout.SampleLayout)
        raise NotImplementedError

    _PROCESS_LOCAL = ("_ids", "_batch_rows", "_batch_key", "_batch_buf", "_batch_out",
                      "_mass_keys", "_mass_keys_bodies")

    def _bind_bodies(self) -> None:
        """The per-process handles on :attr:`bodies` (batch buffers, body ids): made when the
        arrays are built and again after unpickling."""
        bodies = self.bodies
        # batch reads: the bodies' ids, and where they were in the space's body order last time
        self._ids = np.array([b.id for b in bodies], np.uint64)
        self._batch_rows = np.zeros(0, np.int64)
        self._batch_key = b""  # the space's body ids when _batch_rows was found
        # the buffers are kept across rebuilds: pymunk 6.9 never frees a batch.Buffer
        have = _BATCH is not None and bodies
        self._batch_buf = (getattr(self, "_batch_buf", None) or _BATCH.Buffer()) if have else None
        # batch writes get a buffer of their own: it points at our array (set_float_buf), and a
        # read into it would let pymunk reallocate numpy's memory
        self._batch_out = (getattr(self, "_batch_out", None) or _BATCH.Buffer()) if have else None
        # (mass, moment) of each body when its centre of gravity was last read
        self._mass_keys: list[tuple[float, float]] | None = None
        self._mass_keys_bodies: list[pymunk.Body] = []

    def __getstate__(self) -> dict[str, object]:
        """Pickle/deepcopy support: everything but the per-process handles on the bodies."""
        state = self.__dict__.copy()
        for name in self._PROCESS_LOCAL:
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        if "_contain_scratch" not in state:  # saved before the kernels took grouped arrays
            self._dirty = True  # the next step builds the groups with everything else
        if "_starts" not in state:  # saved before the samples were grouped by body
            self._dirty = True  # the next step groups them and finds each body's run
        if "_in_arm" not in state:  # saved before the pushes had their anchors
            self._dirty = True
        if hasattr(self, "bodies"):
            self._bind_bodies()

    def _follow_space(self) -> None:
        """Shapes out of their Space (a gate the game opened with ``space.remove(gate)``, a
        body it took out) or made sensors (``gate.sensor = True``) hold no water until they
        are back: the arrays are built again whenever that set changes (read once per
        step)."""
        out = tuple(s for s in self._records if s.space is None or s.sensor)
        if out != self._out_of_space:
            self._out_of_space = out
            self._dirty = True

    def _records_in_space(self) -> list[Any]:
        """The shape records that :meth:`_follow_space` last found in a Space."""
        out = set(self._out_of_space)
        return [r for s, r in self._records.items() if s not in out]

    def read_bodies(self, full: bool = True) -> None:
        """Read every coupled body's pose and velocity into :attr:`state` (one loop, dozens).

        Args:
            full: Also read the body type, mass, moment and centre of gravity (once per step
                is enough: they do not change inside a step). The centre of gravity is read
                again only when the mass or moment changed (pymunk moves it with the
                shapes' mass); one set by hand alone is seen after the next attach/remove.

        Raises:
            ValueError: a body has a non-finite position, angle or velocity.
        """
        if full:
            self._follow_space()
        self._build()
        if full:
            self._read_mass_properties()
        if not self._read_batch():
            rows = []
            for b in self.bodies:
                p = b.position
                v = b.velocity
                rows.append((p.x, p.y, b.angle, v.x, v.y, b.angular_velocity))
            if rows:
                self._raw[:] = rows
        if len(self.bodies):
            K.body_state(self._raw, self._cog_local, self.state)
        self._check_state()

    def _read_mass_properties(self) -> None:
        """Mass and moment of every body, each step (pymunk gives kinematic and static bodies an
        infinite mass: a finite one means dynamic); the centre of gravity only where one of
        those changed or the bodies were rebuilt (it is the costly getter, and pymunk moves it
        only with the shapes' mass). One tuple per body, then whole arrays."""
        keys = [(b.mass, b.moment) for b in self.bodies]
        if keys == self._mass_keys:
            return
        cached = dict(zip(self._mass_keys_bodies, self._mass_keys or [], strict=False))
        props: list[tuple[float, float, float, float, float]] = []
        for b, key, (cx, cy) in zip(self.bodies, keys, self._cog_local.tolist(), strict=True):
            if cached.get(b) != key:
                c = b.center_of_gravity
                cx, cy = c.x, c.y
            m, i = key
            props.append((cx, cy, 1.0, m, i) if math.isfinite(m) else (cx, cy, 0.0, 0.0, 0.0))
        a = np.array(props, np.float64).reshape(-1, 5)
        self._set_mass_properties(a[:, :2], a[:, 2] > 0.0, a[:, 3], a[:, 4])
        self._mass_keys = keys
        self._mass_keys_bodies = list(self.bodies)

    def _set_mass_properties(self, cog: NDArray[np.float64], dynamic: NDArray[np.bool_],
                             mass: NDArray[np.float64], moment: NDArray[np.float64]) -> None:
        """Keep the bodies' centres of gravity, which are dynamic, and their inverse masses and
        moments (0 where not dynamic, or not positive and finite), each at most that of the
        body's floor (:data:`.layout.MASS_FLOOR`)."""
        self._cog_local[:] = cog
        self.dynamic[:] = dynamic
        # the fluid may wet the solids of moving bodies (double density relaxation), not walls
        self.fluid.solid_wet[self._n_wall:] = dynamic[self._out_owner]
        for v, floor, out in ((mass, self._floor_mass, self._inv_mass),
                              (moment, self._floor_moment, self._inv_moment)):
            ok = dynamic & (v > 0.0) & np.isfinite(v)
            out[:] = 0.0
            np.divide(1.0, np.maximum(v, floor), out=out, where=ok)
        ok = dynamic & (mass > 0.0) & np.isfinite(mass)
        self._mass_real = np.where(ok, mass, 0.0)
        self._inv_apply = self._inv_mass.copy()
        self._inv_moment_apply = self._inv_moment.copy()

    def _added_mass(self, J: NDArray[np.float64], area: NDArray[np.float64],
                    profile: NDArray[np.float64], gravity: tuple[float, float],
                    h: float) -> None:
        """The mass the fluid's impulses move each wet body with, and the gravity to match.

        A body pushes the fluid it moves through, so it answers to the fluid with more than its
        own mass (added mass: a cylinder's is the fluid it displaces). The exchange is
        explicit, and a body much lighter than that overshoots at every contact, more each
        time. So the impulses of this substep move a body that touches the fluid with
        ``m_eff = max(m, floor, ADDED_MASS * rho * submerged area)`` (``rho``: the densest
        row of each body's density ``profile``, the fluid beside it, at least water's; the
        floor, :data:`.layout.MASS_FLOOR`, a layer of that fluid, and the moment's floor
        with it: a 20 x 20 box of 0.5 in a fluid of density 100 overflowed with water's);
        ``(m - m_eff) g h`` added to ``J`` makes its velocity change ``(J + m g h) / m_eff``
        in all, so it still floats at its own Archimedes draft (``J = -m g h`` at rest),
        answering to both with the added inertia: a light body let go under water rises at
        most at ``(1 / ADDED_MASS - 1) g``. Before, light bodies floated as deep as the floor's
        mass and rose at ~8 g (pymunk's tutorial ball at 0.09-0.16 of its area under instead of
        0.0016; a 40 x 40 crate of 0.05 let go under water overflowed). A body in the air moves
        with its own mass.
        """
        m = getattr(self, "_mass_real", None)
        if m is None or len(m) != len(J):
            return
        inv = self._inv_mass
        wet = ((J != 0.0).any(axis=1) | (area > 0.0)) & (inv > 0.0)
        rho = profile.max(axis=1, initial=0.0)
        heavier = np.maximum(rho / float(self._rho_table[0]), 1.0)  # the floors are water's
        m_eff = np.where(wet, np.maximum.reduce([
            np.divide(1.0, inv, out=np.zeros_like(inv), where=inv > 0.0),
            heavier * self._floor_mass, ADDED_MASS * rho * area]), 0.0)
        moment = np.divide(1.0, self._inv_moment, out=np.zeros_like(inv),
                           where=self._inv_moment > 0.0)
        self._inv_moment_apply = self._inv_moment.copy()
        np.divide(1.0, np.maximum(moment, heavier * self._floor_moment),
                  out=self._inv_moment_apply, where=wet & (self._inv_moment > 0.0))
        gap = np.where(wet, np.minimum(m - m_eff, 0.0), 0.0)
        J[:, 0] += gap * gravity[0] * h
        J[:, 1] += gap * gravity[1] * h
        self._inv_apply = np.where(wet, np.divide(1.0, m_eff, out=np.zeros_like(inv),
                                                  where=m_eff > 0.0), inv)

    def remember_drift(self, h: float) -> None:
        """Where each body's centre of gravity is before pymunk's coming step of ``h``
        (:meth:`report_motion` measures the drift from it). The ``exchange`` stage calls it."""
        self._drift_from = (self.bodies, self.state[:, 7:9].copy(), h)

    def report_motion(self, gravity: tuple[float, float]) -> None:
        """Between steps, each dynamic body's velocity says how it moves.

        The fluid's impulses reach a body before pymunk's step, whose gravity kick comes after
        the move (pymunk moves the bodies first): after a step, a body floating at rest had
        ``g h`` in its velocity (-7.5 units/s at the game preset) that the next step's first
        impulse takes out again. Each body that drifted over the last substep by other than
        its velocity gets the velocity it drifted with (its centre's move over the substep;
        a body lying on the floor under water keeps ~0); :meth:`restore_velocities` puts
        back the velocity pymunk left before the next step, so the steps are the same to the
        bit. Only bodies in the water: one in the air keeps pymunk's velocity after its
        gravity kick, as pymunk reports a falling body. A move further than ``4 |g| h`` from
        the velocity (a body put somewhere by its position) is left alone. Call it after the
        step's last ``read_bodies`` (``settle``).
        """
        self._prepaid: list[tuple[pymunk.Body, tuple[float, float], tuple[float, float]]] = []
        last = getattr(self, "_drift_from", None)
        n = len(self.bodies)
        if last is None or last[0] is not self.bodies or len(last[1]) != n or last[2] <= 0.0:
            return
        moved = (self.state[:, 7:9] - last[1]) / last[2] - self.state[:, 4:6]
        ok = np.hypot(moved[:, 0], moved[:, 1]) <= 4.0 * math.hypot(*gravity) * last[2]
        for k in np.flatnonzero(ok & self.dynamic & (self.submerged_area > 0.0)).tolist():
            b = self.bodies[k]
            if b.space is None:
                continue
            v = b.velocity
            now = (v.x + float(moved[k, 0]), v.y + float(moved[k, 1]))
            b.velocity = now
            self._prepaid.append((b, (v.x, v.y), now))

    def restore_velocities(self) -> None:
        """Undo :meth:`report_motion` before a step: a body whose velocity is still the one it
        set gets pymunk's back exactly; one whose velocity the game changed since keeps the
        change, less the part reported; one out of its space, or made kinematic or static
        since, is left as it is (a kinematic body moves by its velocity alone: less the part
        reported, a crate frozen with ``velocity = (0, 0)`` sank at ``g h`` for good)."""
        for b, before, now in getattr(self, "_prepaid", ()):
            if b.space is None or b.body_type != pymunk.Body.DYNAMIC:  # the game's now
                continue
            v = b.velocity
            if (v.x, v.y) == now:
                b.velocity = before
            else:
                b.velocity = (v.x - (now[0] - before[0]), v.y - (now[1] - before[1]))
        self._prepaid = []

    def _limit_speed(self, J: NDArray[np.float64], tau: NDArray[np.float64]) -> None:
        """A safety net: the fluid's impulses of a substep take no body faster than
        ``max(|v| + SPEED_SLACK |g| h, 2 vmax)``, twice the particles' speed limit
        (:data:`~fluidworld.fluid.advection.MAX_SPEED_CELLS`), as an elastic hit of the
        fastest particle would; its spin alike over its radius of gyration. It never acts in
        the scenes measured; a faucet run into a small sealed box compresses the fluid until
        it bursts, and its impulses flung a 10 x 10 box to 1e45 units/s (pymunk then raised
        ``OverflowError``; measured against the fastest particle instead, the box's spin and
        the particles it threw out raised each other's limit)."""
        p = self.fluid.params
        K.limit_speeds(self.state, J, tau, self._inv_apply_now(), self._inv_moment_now(),
                       2.0 * self.fluid.speed_limit(),
                       SPEED_SLACK * math.hypot(*p.gravity) * p.h)

    def _check_state(self) -> None:
        st = self.state
        if len(st) and not np.isfinite(st).all():
            bad = int(np.nonzero(~np.isfinite(st).all(axis=1))[0][0])
            raise ValueError(
                f"body {self.bodies[bad]!r} has a non-finite position, angle or velocity"
            )

    def _space_rows(self) -> NDArray[np.float64] | None:
        """Every body of the coupled bodies' space in one ``pymunk.batch`` call: an (n, 6) view
        of positions, angles and velocities in the space's order (the same doubles as the
        getters), with ``_batch_rows`` the coupled bodies' rows. ``None`` where there are no
        bodies, they are not all in one space or the batch module is missing."""
        buf = self._batch_buf
        if buf is None:  # no batch module, or no bodies
            return None
        space = self.bodies[0].space
        if space is None:
            return None
        buf.clear()
        _BATCH.get_space_bodies(space, _BATCH_FIELDS, buf)
        key = buf.int_buf()[:]  # the space's body ids, in its order
        # the space keeps its order between steps: search only when the ids have changed
        if key != self._batch_key:
            ids = np.frombuffer(key, np.uint64)
            n = len(ids)
            order = np.argsort(ids, kind="stable")
            at = np.minimum(np.searchsorted(ids[order], self._ids), max(n - 1, 0))
            if n == 0 or not (ids[order[at]] == self._ids).all():
                self._batch_key = b""
                return None  # a body is not in this space
            self._batch_rows = order[at]
            self._batch_key = key
        return np.frombuffer(buf.float_buf(), np.float64).reshape(-1, 6)

    def _read_batch(self) -> bool:
        """Every coupled body's position, angle and velocities into ``_raw`` in one
        ``pymunk.batch`` call over their space (bit-identical to the getters). False, and
        nothing read, where that cannot be done (see :meth:`_space_rows`): the caller then
        reads them one by one."""
        raw = self._space_rows()
        if raw is None:
            return False
        np.take(raw, self._batch_rows, axis=0, out=self._raw)
        return True

    def _apply(self, J: NDArray[np.float64], tau: NDArray[np.float64]) -> None:
        """Write the summed impulses back: ``v += J/m`` and ``w += tau/I`` on every dynamic body.

        Velocities are read and written for the whole space in two ``pymunk.batch`` calls
        (:meth:`_apply_batch`); otherwise body by body, through the same arithmetic, so both
        ways give the same doubles. Setting a velocity wakes a sleeping body, as an impulse
        does; bodies that get nothing are left alone.
        """
        self._limit_speed(J, tau)
        if self._apply_batch(J, tau):
            return
        dyn = self.dynamic.tolist()
        inv_m = self._inv_apply_now().tolist()
        inv_i = self._inv_moment_now().tolist()
        rows = zip(self.bodies, J.tolist(), tau.tolist(), strict=True)
        for k, (b, (jx, jy), t) in enumerate(rows):
            if not dyn[k] or (jx == 0.0 and jy == 0.0 and t == 0.0):
                continue
            v = b.velocity
            b.velocity = (v.x + jx * inv_m[k], v.y + jy * inv_m[k])
            b.angular_velocity = b.angular_velocity + t * inv_i[k]

    def defer_into_contacts(
            self, J: NDArray[np.float64], tau: NDArray[np.float64],
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64] | None]:
        """Split the impulses into what to write into the velocities now and what to give
        pymunk as a force and torque for its step: for a dynamic body touching a shape (the
        contacts of pymunk's last step), the part of its impulse that would drive it into the
        shape, and its angular impulse. Returns ``(J_now, tau_now, deferred)``, ``deferred`` an
        ``(n, 3)`` array of impulses ``x, y`` and angular impulse, or ``None`` (then ``J_now``
        and ``tau_now`` are ``J`` and ``tau`` themselves). ``J`` and ``tau`` are never changed
        (``BodyHandle.fluid_force`` reports the push whole).

        pymunk's step moves a body by its velocity first, then detects and solves contacts: an
        impulse written into the velocity before the step moved the body into what it pressed
        on, and the contact's bias took the overlap back slowly (a 40 x 40 box of 3x water's
        density under 100 units of it sat 1.1 units into the floor with ``ddr``, 0.9 with the
        constraint solver, whose contacts carry the water's load on its top; a box of 0.5
        floated up under a static slab drove a tilted corner 8-9 units into it with those two,
        1.6 with SRD; a crate on a floating raft sat 2.3 units into the raft with every
        solver). A force enters pymunk's step with gravity, after the move and before the
        contacts, which then carry it, friction included. Along a contact's normal ``n`` a body
        keeps as an impulse only what stops it moving away from the shape, ``-(v - w).n`` at
        most (``w`` the other body's velocity, 0 for a static or kinematic one): keeping what
        cancels gravity's kick under a slab moved the body ``g h^2`` into it every substep and
        left it 1.3 units in. A body pushed by the fluid into the shape it touches gets the
        fluid's angular impulse as a torque as well (as an impulse it turned a corner in)."""
        deferred: NDArray[np.float64] | None = None
        J_now, tau_now = J, tau
        inv_m = self._inv_apply_now()
        most = DEFER_SHARE * self.fluid.speed_limit()
        for k in np.flatnonzero(self.dynamic).tolist():
            jx, jy = float(J[k, 0]), float(J[k, 1])
            if (jx == 0.0 and jy == 0.0) or not inv_m[k] > 0.0:
                continue
            if math.hypot(jx, jy) * inv_m[k] > most:  # a blow, not a load: as an impulse
                continue
            b = self.bodies[k]
            touching: list[tuple[float, float, pymunk.Body | None]] = []
            b.each_arbiter(_contact_normal, b, touching)
            if not touching:
                continue
            v = b.velocity
            dx = dy = 0.0
            for nx, ny, partner in touching:
                w = (0.0, 0.0) if partner is None else partner.velocity
                keep = max(0.0, -((v.x - w[0]) * nx + (v.y - w[1]) * ny)) / float(inv_m[k])
                push = (jx - dx) * nx + (jy - dy) * ny
                if push > keep:
                    dx += (push - keep) * nx
                    dy += (push - keep) * ny
            if dx == 0.0 and dy == 0.0:
                continue
            if deferred is None:
                J_now, tau_now, deferred = J.copy(), tau.copy(), np.zeros((len(J), 3))
            J_now[k, 0] -= dx
            J_now[k, 1] -= dy
            deferred[k] = dx, dy, tau[k]
            tau_now[k] = 0.0
        return J_now, tau_now, deferred

    def apply_deferred(self, deferred: NDArray[np.float64], h: float) -> None:
        """Add the deferred impulses (:meth:`defer_into_contacts`) to the bodies' force and
        torque for pymunk's next step of ``h``: the same changes of velocity and spin as the
        impulses (with the mass and moment they are applied with, added mass included), over
        the body's own mass and moment."""
        inv_m = self._inv_apply_now()
        inv_i = self._inv_moment_now()
        for k in np.flatnonzero(np.any(deferred != 0.0, axis=1)).tolist():
            b = self.bodies[k]
            scale = float(inv_m[k]) * b.mass / h
            f = b.force
            b.force = (f.x + float(deferred[k, 0]) * scale, f.y + float(deferred[k, 1]) * scale)
            if inv_i[k] > 0.0 and deferred[k, 2] != 0.0:  # (a body that does not turn: none)
                b.torque = b.torque + float(deferred[k, 2]) * float(inv_i[k]) * b.moment / h

    def _inv_apply_now(self) -> NDArray[np.float64]:
        """The inverse masses the impulses are applied with (:meth:`_added_mass`)."""
        inv = getattr(self, "_inv_apply", None)
        return inv if inv is not None and len(inv) == len(self._inv_mass) else self._inv_mass

    def _inv_moment_now(self) -> NDArray[np.float64]:
        """The inverse moments the angular impulses are applied with (:meth:`_added_mass`)."""
        inv = getattr(self, "_inv_moment_apply", None)
        return inv if inv is not None and len(inv) == len(self._inv_moment) else self._inv_moment

    def _apply_batch(self, J: NDArray[np.float64], tau: NDArray[np.float64]) -> bool:
        """:meth:`_apply` for the whole space in one read and one write (``pymunk.batch``).

        The write sets the velocity of every body of the space, the others' to what was just
        read, and setting a velocity wakes a body: so it is only used while the space lets no
        body sleep (pymunk's default). False, and nothing written, where it cannot be used.
        """
        if self._batch_out is None:  # no batch module, or no bodies
            return False
        space = self.bodies[0].space
        if space is None or space.sleep_time_threshold != math.inf:
            return False
        raw = self._space_rows()
        if raw is None:
            return False
        if len(self._batch_vel) != len(raw):
            self._batch_vel = np.zeros((len(raw), 3))  # vx, vy, w of every body of the space
        vel = self._batch_vel
        K.impulse_velocities(raw, self._batch_rows, self.dynamic, J, tau, self._inv_apply_now(),
                             self._inv_moment_now(), vel)
        self._batch_out.set_float_buf(vel.reshape(-1))  # the buffer keeps the array alive
        _BATCH.set_space_bodies(space, _BATCH_SET_FIELDS, self._batch_out)
        return True
