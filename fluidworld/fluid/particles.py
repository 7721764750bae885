"""The particle store: the fluid particles' arrays and masses, additions, removals, totals.

Struct-of-arrays: ``pos``/``vel`` (capacity, 2) float64 and ``mat`` (capacity,) uint8, the first
``count`` rows live. The capacity grows by doubling, up to ``params.max_particles``. Particles are
added one by one or as fill lattices at rest density (a rectangle, a disc) and removed by
mask or index. A particle of material ``k`` has mass ``_mass[k]``; the store sums the fluid's
kinetic energy and momentum and hashes its state. :class:`~fluidworld.fluid.FluidSystem` builds
on this store with the grids, the solids and the stages; its ``bin`` stage sorts the arrays, so
particle indices are not stable across steps.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .params import FluidParams, Material
from .springs import SpringStore

__all__ = ["FIXED_PARAMS", "ParticleStore"]

#: The :class:`FluidParams` fields a fluid is built on (its domain, grids, capacity, wall solids
#: and random stream): ``fluid.params`` can be replaced with new ones that keep these.
FIXED_PARAMS = ("width", "height", "a0", "gamma", "max_particles", "wall_solids", "seed")


class ParticleStore(SpringStore):
    """The live particles of a fluid in the box ``[0, width] x [0, height]``.

    Args:
        params: Simulation parameters (the domain, ``max_particles``, ``r_l`` for the lattices).
        materials: Material table; particle ``mat`` values index it.
    """

    def __init__(self, params: FluidParams, materials: tuple[Material, ...]) -> None:
        self.params = params
        self.material_table: tuple[Material, ...] = materials
        self.count = 0
        self._cap = 0
        self.pos = np.zeros((0, 2))
        self.vel = np.zeros((0, 2))
        self.mat = np.zeros(0, np.uint8)
        #: The number density the solver's fluid rests at where bodies float, in units of the
        #: ``r_L`` lattice's (:meth:`set_rest_fill`; 1 for SRD).
        self.rest_fill = 1.0
        # mass of a particle of each material: its density times the particle's rest area
        self._mass = np.zeros(len(materials))
        self.set_rest_fill(1.0)
        self._init_springs()
        self._reserve(1024)

    @property
    def params(self) -> FluidParams:
        """The fluid's parameters. Replace them (``dataclasses.replace(fluid.params, ...)``) to
        change gravity or a stage's knob between steps; the fields of :data:`FIXED_PARAMS` are
        fixed once the fluid is made.

        Raises:
            TypeError: not a :class:`FluidParams`.
            ValueError: the new parameters change a field of :data:`FIXED_PARAMS`.
        """
        return self._params

    @params.setter
    def params(self, value: FluidParams) -> None:
        if not isinstance(value, FluidParams):
            raise TypeError(f"fluid.params must be a FluidParams, got {type(value).__name__}")
        old = self.__dict__.get("_params")
        if old is not None:
            for name in FIXED_PARAMS:
                if getattr(value, name) != getattr(old, name):
                    raise ValueError(
                        f"fluid.params.{name} is fixed once the fluid is made (it is "
                        f"{getattr(old, name)!r}, got {getattr(value, name)!r}): make a new "
                        "World (or FluidSystem) for another domain, resolution or capacity")
        self._params = value

    def _reserve(self, cap: int) -> None:
        """Grow the arrays to hold ``cap`` particles (at least doubling, at most
        ``params.max_particles``), keeping the live ones; then :meth:`_grow_scratch`."""
        if cap <= self._cap:
            return
        cap = max(cap, 2 * self._cap)
        cap = min(cap, self.params.max_particles)
        for name, shape, dtype in (("pos", (cap, 2), np.float64), ("vel", (cap, 2), np.float64),
                                   ("mat", (cap,), np.uint8)):
            new = np.zeros(shape, dtype)
            new[: self.count] = getattr(self, name)[: self.count]
            setattr(self, name, new)
        # the sort's second buffers, each particle's cell and the kept start positions
        self._pos2 = np.zeros((cap, 2))
        self._vel2 = np.zeros((cap, 2))
        self._mat2 = np.zeros(cap, np.uint8)
        self._cell_of = np.zeros(cap, np.int64)
        self._start_pos = np.zeros((cap, 2))
        self.start_count = -1
        self._cap = cap
        self._grow_scratch(cap)

    def _grow_scratch(self, cap: int) -> None:
        """Allocate the stages' per-particle scratch for capacity ``cap`` (for subclasses)."""

    def set_rest_fill(self, fill: float) -> None:
        """Say that the solver's fluid rests at ``fill`` times the number density of the
        ``r_L`` lattice where bodies float (SRD: 1; double density relaxation: ~0.9, its near
        pressure keeps it looser). A particle of each material then weighs its density times
        ``particle_area / fill``, so that the fluid at rest has its material's mass density and
        bodies float by their density relative to the material's. Masses change in place (the
        kernels hold them).

        Raises:
            ValueError: ``fill`` not in (0, 2].
        """
        if not (math.isfinite(fill) and 0.0 < fill <= 2.0):
            raise ValueError(f"fill must be in (0, 2], got {fill!r}")
        self.rest_fill = float(fill)
        area = self.params.particle_area / self.rest_fill
        self._mass[:] = [m.density * area for m in self.material_table]

    @property
    def positions(self) -> NDArray[np.float64]:
        """Live particle positions, shape (count, 2) (a view)."""
        return self.pos[: self.count]

    @property
    def velocities(self) -> NDArray[np.float64]:
        """Live particle velocities, shape (count, 2) (a view)."""
        return self.vel[: self.count]

    @property
    def materials(self) -> NDArray[np.uint8]:
        """Live particle material ids, shape (count,) (a view)."""
        return self.mat[: self.count]

    def add_particles(
        self, positions: ArrayLike, velocities: ArrayLike | None = None, material: int = 0
    ) -> int:
        """Add particles; returns how many were added.

        Raises:
            ValueError: on non-finite values, positions outside the domain, an unknown material
                or more particles than ``params.max_particles``.
        """
        pos = np.asarray(positions, dtype=np.float64).reshape(-1, 2)
        k = len(pos)
        if velocities is None:
            vel = np.zeros((k, 2))
        else:
            given = np.asarray(velocities, dtype=np.float64)
            try:
                vel = np.broadcast_to(given, (k, 2))
            except ValueError:
                raise ValueError(f"velocities must be one (vx, vy) or one per position "
                                 f"({k}, 2), got shape {given.shape}") from None
        if not np.isfinite(pos).all():
            raise ValueError("positions must be finite (found NaN or inf)")
        if not np.isfinite(vel).all():
            raise ValueError("velocities must be finite (found NaN or inf)")
        p = self.params
        if k and ((pos[:, 0] < 0).any() or (pos[:, 0] > p.width).any()
                  or (pos[:, 1] < 0).any() or (pos[:, 1] > p.height).any()):
            raise ValueError(
                f"positions must lie inside the domain [0, {p.width}] x [0, {p.height}]"
            )
        if isinstance(material, bool) or not isinstance(material, int | np.integer):
            raise TypeError(f"material must be an int id, got {material!r}")
        if not 0 <= material < len(self.material_table):
            top = len(self.material_table) - 1
            raise ValueError(f"material must be in [0, {top}], got {material}")
        if self.count + k > p.max_particles:
            raise ValueError(
                f"cannot add {k} particles: {self.count + k} exceeds max_particles="
                f"{p.max_particles}"
            )
        self._reserve(self.count + k)
        n0 = self.count
        self.pos[n0: n0 + k] = pos
        self.vel[n0: n0 + k] = vel
        self.mat[n0: n0 + k] = material
        self.count += k
        self.start_count = -1
        if self.material_table[material].elasticity > 0.0:  # a jelly: one piece per call
            self.link_particles(n0, n0 + k)
        return k

    def remove_particles(self, mask_or_indices: ArrayLike) -> int:
        """Remove particles given a boolean mask over live particles or their indices.

        Order of the survivors is kept (then the next sort reorders anyway). Returns the number
        removed.
        """
        sel = np.asarray(mask_or_indices)
        n = self.count
        if sel.dtype == bool:
            if sel.shape != (n,):
                raise ValueError(f"mask must have shape ({n},), got {sel.shape}")
            keep = ~sel
        else:
            idx = sel.astype(np.int64).ravel()
            if len(idx) and (idx.min() < 0 or idx.max() >= n):
                raise IndexError(f"particle index out of range [0, {n})")
            keep = np.ones(n, bool)
            keep[idx] = False
        m = int(keep.sum())
        removed = n - m
        if removed:
            self._springs_after_remove(keep)
            self.pos[:m] = self.pos[:n][keep]
            self.vel[:m] = self.vel[:n][keep]
            self.mat[:m] = self.mat[:n][keep]
            self.count = m
            self.start_count = -1
        return removed

    def hex_lattice(
        self, x0: float, y0: float, x1: float, y1: float, spacing: float | None = None
    ) -> NDArray[np.float64]:
        """Points of the fill lattice in ``[x0, x1) x [y0, y1)`` at rest density: rows
        ``spacing sqrt(3) / 2`` apart, points ``spacing`` apart along a row, the rows shifted
        by a quarter and a half spacing in turn (so not quite hexagonal: each point has two
        neighbours at 0.90 ``spacing``, two at 1.0 and two at 1.15).

        The default spacing is ``r_L`` (Eq. 5): the lattice at ``r_L`` has exactly ``gamma``
        particles per ``a0^2``, as a hexagonal one would. Every solver's rest state was
        measured from this fill; a truly hexagonal one (rows a half spacing apart) left
        ``ddr``'s 300-deep pool moving at 5.4 units/s after 8 s, over its test's 1 % of
        ``sqrt(g d)`` (docs/architecture.md, "Data").
        """
        s = self.params.r_l if spacing is None else float(spacing)
        if not s > 0:
            raise ValueError(f"spacing must be > 0, got {spacing}")
        dy = s * math.sqrt(3.0) / 2.0
        estimate = max(x1 - x0, 0.0) * max(y1 - y0, 0.0) / (s * dy)
        room = self.params.max_particles - self.count
        if estimate > 2 * room + 1000:  # before building it: a tiny spacing ran out of memory
            raise ValueError(
                f"this fill would build about {estimate:.3g} lattice points (spacing {s:g}) but "
                f"the fluid has room for {room} more (max_particles {self.params.max_particles})"
                f": use a larger spacing, a smaller region or FluidParams(max_particles=...)")
        ys = np.arange(y0 + dy / 2, y1, dy)
        pts = []
        for row, y in enumerate(ys):
            off = s / 2 if row % 2 else s / 4
            xs = np.arange(x0 + off, x1, s)
            pts.append(np.column_stack([xs, np.full(len(xs), y)]))
        return np.concatenate(pts) if pts else np.zeros((0, 2))

    def fill_rect(
        self, x0: float, y0: float, x1: float, y1: float, material: int = 0,
        velocity: tuple[float, float] = (0.0, 0.0), spacing: float | None = None,
    ) -> int:
        """Fill a rectangle with particles on the fill lattice (:meth:`hex_lattice`); returns
        how many were added."""
        for name, v in (("x0", x0), ("y0", y0), ("x1", x1), ("y1", y1)):
            if not math.isfinite(v):
                raise ValueError(f"{name} must be finite, got {v}")
        if x1 <= x0 or y1 <= y0:
            raise ValueError(f"empty rectangle ({x0}, {y0})-({x1}, {y1})")
        p = self.params
        x0, x1 = max(x0, 0.0), min(x1, p.width)
        y0, y1 = max(y0, 0.0), min(y1, p.height)
        pts = self.hex_lattice(x0, y0, x1, y1, spacing)
        return self.add_particles(pts, velocity, material)

    def fill_circle(
        self, cx: float, cy: float, radius: float, material: int = 0,
        velocity: tuple[float, float] = (0.0, 0.0), spacing: float | None = None,
    ) -> int:
        """Fill a disc with particles on a hexagonal lattice; returns how many were added."""
        if not (math.isfinite(radius) and radius > 0):
            raise ValueError(f"radius must be > 0, got {radius}")
        pts = self.hex_lattice(cx - radius, cy - radius, cx + radius, cy + radius, spacing)
        inside = ((pts[:, 0] - cx) ** 2 + (pts[:, 1] - cy) ** 2) < radius * radius
        pts = pts[inside]
        p = self.params
        ok = (pts[:, 0] >= 0) & (pts[:, 0] <= p.width) & (pts[:, 1] >= 0) & (pts[:, 1] <= p.height)
        return self.add_particles(pts[ok], velocity, material)

    @property
    def start_positions(self) -> NDArray[np.float64] | None:
        """Positions of the live particles at the start of the substep: as the last sort left
        them (if ``FluidSystem.keep_start_positions`` is on) or as :meth:`mark_start_positions`
        copied them. ``None`` if neither, or if particles were added or removed since."""
        if self.start_count != self.count:
            return None
        return self._start_pos[: self.count]

    def mark_start_positions(self) -> None:
        """Copy the current positions to :attr:`start_positions` (the sort does it on its own
        when ``FluidSystem.keep_start_positions`` is on)."""
        self._start_pos[: self.count] = self.pos[: self.count]
        self.start_count = self.count

    # ------------------------------------------------------------------ queries
    def material_colors(self) -> NDArray[np.uint8]:
        """RGBA colour of each material, shape (n_materials, 4)."""
        return np.array([m.color for m in self.material_table], np.uint8)

    def kinetic_energy(self) -> float:
        """Total kinetic energy of the fluid."""
        m = self._mass[self.mat[: self.count]]
        return float(0.5 * (m * (self.velocities ** 2).sum(axis=1)).sum())

    def momentum(self) -> NDArray[np.float64]:
        """Total linear momentum of the fluid."""
        m = self._mass[self.mat[: self.count]]
        return (m[:, None] * self.velocities).sum(axis=0)

    def state_hash(self) -> str:
        """SHA-256 of the live particle arrays (determinism checks)."""
        import hashlib

        hsh = hashlib.sha256()
        for a in (self.positions, self.velocities, self.materials):
            hsh.update(np.ascontiguousarray(a).tobytes())
        if self.spring_count:  # a jelly's springs are state too
            for a in self._spring_group():
                hsh.update(np.ascontiguousarray(a[: self.spring_count]).tobytes())
        return hsh.hexdigest()
