"""Splash particles: visual-only droplets thrown off fast, thin parts of the fluid.

As in Sprinkle, splashes are not simulated as fluid: they fly ballistically and vanish the moment
they touch anything (solid geometry or the water body). That keeps them cheap and lets the fluid
solver run at a coarse resolution while the spray still looks fine.

Everything here is vectorised numpy over the splash arrays; the only GL code is ``draw()``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from .._args import _points
from . import shaders
from ._checks import at_least, between, finite, pair, positive, rgba, whole
from ._gl import InstanceBuffer, blending, current_ctx, instanced_quads, quad_buffer, set_uniforms
from .protocols import FluidView, fluid_view

__all__ = ["MAX_SPLASHES", "GridCollider", "SplashSystem", "solid_cells"]

#: The most live splashes a :class:`SplashSystem` holds (``capacity``): 1e12 asked for 14.6 TiB.
MAX_SPLASHES = 10_000_000

Points = npt.NDArray[np.float64]
Collider = Callable[[Points], npt.NDArray[np.bool_]]


def solid_cells(
    solid_positions: npt.ArrayLike, grid_shape: tuple[int, int], a0: float
) -> npt.NDArray[np.bool_]:
    """Mark the grid cells that contain at least one solid particle.

    Args:
        solid_positions: (m, 2) positions of solid (wall/body) particles.
        grid_shape: ``(ny, nx)``.
        a0: Cell size.

    Returns:
        A ``(ny, nx)`` bool mask.
    """
    ny, nx = grid_shape
    mask = np.zeros((ny, nx), dtype=bool)
    pts = np.asarray(solid_positions, dtype=np.float64).reshape(-1, 2)
    if len(pts):
        ij = np.floor(pts / a0).astype(np.int64)
        ok = (ij[:, 0] >= 0) & (ij[:, 0] < nx) & (ij[:, 1] >= 0) & (ij[:, 1] < ny)
        mask[ij[ok, 1], ij[ok, 0]] = True
    return mask


class GridCollider:
    """ "Is this point inside a solid or the water?" answered from cell grids.

    A cell blocks a splash if it is solid, or if its fluid density ratio is at least
    ``water_threshold``. Points outside the grid count as blocked (``outside_blocks``), so splashes
    leaving the world disappear.

    Args:
        cell_size: Grid cell size (``a0``).
        density: ``(ny, nx)`` density ratio per cell, or ``None`` for no water.
        solid: ``(ny, nx)`` bool solid mask, or ``None``.
        water_threshold: Density ratio from which a cell counts as water.
        origin: World position of the grid's lower-left corner.
        outside_blocks: Whether points outside the grid are blocked.

    Raises:
        TypeError / ValueError: naming the argument (a non-finite or non-positive cell size,
        no grid, grids of different or non 2-D shapes).
    """

    def __init__(
        self,
        cell_size: float,
        *,
        density: npt.ArrayLike | None = None,
        solid: npt.ArrayLike | None = None,
        water_threshold: float = 0.5,
        origin: tuple[float, float] = (0.0, 0.0),
        outside_blocks: bool = True,
    ) -> None:
        cell_size = positive("cell_size", cell_size)
        water_threshold = finite("water_threshold", water_threshold)
        origin = pair("origin", origin)
        if density is None and solid is None:
            raise ValueError("GridCollider needs a density grid, a solid mask, or both")
        blocked: npt.NDArray[np.bool_] | None = None
        if density is not None:
            blocked = np.asarray(density, dtype=np.float64) >= water_threshold
        if solid is not None:
            s = np.asarray(solid, dtype=bool)
            if blocked is not None and s.shape != blocked.shape:
                raise ValueError(f"solid mask {s.shape} and density {blocked.shape} differ")
            blocked = s if blocked is None else (blocked | s)
        assert blocked is not None
        if blocked.ndim != 2:
            raise ValueError(f"grids must be 2-D (ny, nx), got shape {blocked.shape}")
        self.blocked = blocked
        self.cell_size = float(cell_size)
        self.origin = (float(origin[0]), float(origin[1]))
        self.outside_blocks = bool(outside_blocks)

    @classmethod
    def from_fluid(
        cls,
        fluid: FluidView,
        *,
        water_threshold: float = 0.5,
        solid: npt.ArrayLike | None = None,
        include_solid_particles: bool = True,
    ) -> GridCollider:
        """Build a collider from the fluid's cell density and solid particles.

        Args:
            fluid: The fluid, or a World (reads ``cell_density``, ``solid_positions``,
                ``params.a0``).
            water_threshold: Density ratio from which a cell counts as water.
            solid: An extra ``(ny, nx)`` solid mask (e.g. static level geometry).
            include_solid_particles: Also mark cells containing solid particles.
        """
        fluid = fluid_view(fluid)
        a0 = float(fluid.params.a0)
        shape = tuple(fluid.grid_shape)
        mask = np.zeros(shape, dtype=bool)
        if solid is not None:
            mask |= np.asarray(solid, dtype=bool)
        if include_solid_particles:
            mask |= solid_cells(fluid.solid_positions, (shape[0], shape[1]), a0)
        return cls(a0, density=fluid.cell_density, solid=mask, water_threshold=water_threshold)

    def __call__(self, points: npt.ArrayLike) -> npt.NDArray[np.bool_]:
        """Return, per point, whether it is inside a blocked cell."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        ny, nx = self.blocked.shape
        i = np.floor((pts[:, 0] - self.origin[0]) / self.cell_size)
        j = np.floor((pts[:, 1] - self.origin[1]) / self.cell_size)
        inside = (i >= 0) & (i < nx) & (j >= 0) & (j < ny)
        out = np.full(len(pts), self.outside_blocks, dtype=bool)
        out[inside] = self.blocked[j[inside].astype(np.int64), i[inside].astype(np.int64)]
        return out


def _xy_rows(name: str, value: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``value`` as ``(n, 2)`` finite floats (:func:`fluidworld._args._points`; a single
    ``(x, y)`` is one row)."""
    a = np.asarray(value, dtype=object)
    return _points(name, [value] if a.shape == (2,) else value, 0)


def _colour_rows(value: npt.ArrayLike, n: int) -> npt.NDArray[np.uint8]:
    """``colors`` as ``(n, 4)`` uint8: one colour for all, or one per splash."""
    try:
        a = np.asarray(value)
    except ValueError:  # ragged rows
        raise ValueError(f"colors must be one RGB(A) colour or {n} of one length, got "
                         f"{value!r}") from None
    if a.ndim == 1:
        return np.tile(np.array(rgba("colors", a.tolist()), np.uint8), (n, 1))
    if a.ndim != 2 or len(a) != n or a.shape[1] not in (3, 4):
        raise ValueError(f"colors must be one RGB(A) colour or {n} of them, got shape {a.shape}")
    if a.dtype != np.uint8:  # spawn_from's palette is uint8 already: checked as a whole
        if not (np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating)):
            raise TypeError(f"colors must be numbers in 0..255, got dtype {a.dtype}")
        if not (np.isfinite(a).all() and (a == np.round(a)).all() and a.min() >= 0
                and a.max() <= 255):
            raise ValueError("colors must be whole numbers in 0..255")
    out = np.full((n, 4), 255, np.uint8)
    out[:, :a.shape[1]] = a
    return out


class SplashSystem:
    """A capped pool of ballistic, visual-only splash particles drawn as short streaks.

    Args:
        capacity: Maximum number of live splashes; spawning stops at the cap (at most
            :data:`MAX_SPLASHES`).
        speed_min: Fluid particles faster than this (world units/s) may spawn a splash.
        density_max: ... and only if their density ratio is below this (they left the bulk).
        spawn_chance: Probability that an eligible particle spawns a splash per ``spawn_from``.
        max_per_spawn: Upper bound on splashes created by one ``spawn_from`` call.
        lifetime: Seconds before a splash fades out if it never hits anything.
        jitter: Relative random spread added to the inherited velocity.
        streak_time: Streak length is ``|v| * streak_time`` (seconds of motion).
        width: Streak width in world units.
        probe: Spacing of collision probes along a step (world units) when the collider is a
            plain callable; a ``GridCollider`` is probed every half cell.
        seed: Seed of the random generator (spawn choice and jitter).

    Raises:
        TypeError / ValueError: naming the argument, for a non-number, NaN/inf or out of range.
    """

    MAX_PROBES = 16

    def __init__(
        self,
        capacity: int = 4096,
        *,
        speed_min: float = 150.0,
        density_max: float = 0.5,
        spawn_chance: float = 0.25,
        max_per_spawn: int = 256,
        lifetime: float = 1.5,
        jitter: float = 0.15,
        streak_time: float = 0.025,
        width: float = 1.5,
        probe: float = 2.0,
        seed: int | None = 0,
    ) -> None:
        self.capacity = whole("capacity", capacity, 0, MAX_SPLASHES)
        self.speed_min = at_least("speed_min", speed_min, 0.0)
        self.density_max = finite("density_max", density_max)
        self.spawn_chance = between("spawn_chance", spawn_chance, 0.0, 1.0)
        self.max_per_spawn = whole("max_per_spawn", max_per_spawn, 0)
        self.lifetime = positive("lifetime", lifetime)
        self.jitter = at_least("jitter", jitter, 0.0)
        self.streak_time = at_least("streak_time", streak_time, 0.0)
        self.width = positive("width", width)
        self.probe = positive("probe", probe)
        if seed is not None:
            whole("seed", seed, 0)
        self.rng = np.random.default_rng(seed)
        self.positions = np.zeros((self.capacity, 2))
        self.velocities = np.zeros((self.capacity, 2))
        self.colors = np.zeros((self.capacity, 4), dtype=np.uint8)
        self.ages = np.zeros(self.capacity)
        self.count = 0
        self._gl: dict[str, Any] | None = None

    # --- simulation (numpy only) ----------------------------------------------------------------
    def clear(self) -> None:
        """Remove every splash."""
        self.count = 0

    def spawn(
        self,
        positions: npt.ArrayLike,
        velocities: npt.ArrayLike,
        colors: npt.ArrayLike | None = None,
    ) -> int:
        """Add splashes directly (up to the cap). Returns how many were added.

        Args:
            positions: ``(n, 2)`` finite points (one ``(x, y)`` for one splash).
            velocities: ``(n, 2)`` finite velocities, one per position.
            colors: One RGB(A) colour for all, or ``(n, 3 | 4)`` of 0..255; default pale blue.

        Raises:
            TypeError / ValueError: naming the argument, for a shape other than these, a
            non-finite value or a channel outside 0..255.
        """
        pos = _xy_rows("positions", positions)
        vel = _xy_rows("velocities", velocities)
        if len(vel) != len(pos):
            raise ValueError(f"{len(pos)} positions but {len(vel)} velocities")
        rgba = None if colors is None else _colour_rows(colors, len(pos))
        k = min(len(pos), self.capacity - self.count)
        if k <= 0:
            return 0
        s = slice(self.count, self.count + k)
        self.positions[s] = pos[:k]
        self.velocities[s] = vel[:k]
        self.colors[s] = (220, 235, 255, 255) if rgba is None else rgba[:k]
        self.ages[s] = 0.0
        self.count += k
        return k

    def candidates(self, fluid: FluidView) -> npt.NDArray[np.intp]:
        """Indices of fluid particles that are fast and in a thin (low density) region
        (``fluid``: a fluid or a World, as :func:`~fluidworld.render.protocols.fluid_view`
        takes it)."""
        fluid = fluid_view(fluid)
        n = int(fluid.count)
        if n == 0:
            return np.zeros(0, dtype=np.intp)
        vel = fluid.velocities[:n]
        speed2 = np.einsum("ij,ij->i", vel, vel)
        fast = speed2 > self.speed_min * self.speed_min
        thin = fluid.particle_density()[:n] < self.density_max
        return np.flatnonzero(fast & thin)

    def spawn_from(self, fluid: FluidView) -> int:
        """Spawn splashes at a random subset of the fluid's splash candidates.

        Each candidate spawns with probability ``spawn_chance``; at most ``max_per_spawn`` per
        call and never beyond ``capacity``. Splashes inherit the particle's position, velocity
        (with ``jitter``) and material colour.

        Returns:
            The number of splashes spawned.
        """
        fluid = fluid_view(fluid)
        idx = self.candidates(fluid)
        if len(idx) == 0:
            return 0
        if self.spawn_chance < 1.0:
            idx = idx[self.rng.random(len(idx)) < self.spawn_chance]
        room = min(self.capacity - self.count, self.max_per_spawn)
        if room <= 0 or len(idx) == 0:
            return 0
        if len(idx) > room:
            idx = self.rng.choice(idx, size=room, replace=False)
        vel = fluid.velocities[idx]
        speed = np.sqrt(np.einsum("ij,ij->i", vel, vel))[:, None]
        vel = vel + self.rng.normal(0.0, self.jitter, size=vel.shape) * speed
        palette = np.asarray(fluid.material_colors(), dtype=np.uint8)
        mats = np.minimum(fluid.materials[idx].astype(np.intp), len(palette) - 1)
        colors = palette[mats].copy()
        colors[:, :3] = np.minimum(colors[:, :3].astype(np.int32) + 60, 255).astype(np.uint8)
        return self.spawn(fluid.positions[idx], vel, colors)

    def step(
        self,
        dt: float,
        gravity: tuple[float, float] | npt.ArrayLike,
        is_solid_or_water: Collider | GridCollider | npt.ArrayLike,
        *,
        cell_size: float | None = None,
    ) -> int:
        """Move splashes ballistically and remove every one that touches solid or water.

        A splash is removed when any point of its path this step is blocked (probed densely
        enough that it cannot skip a one-cell wall), or when it is older than ``lifetime``.

        Args:
            dt: Time step in seconds.
            gravity: ``(gx, gy)`` acceleration.
            is_solid_or_water: A callable ``points (k, 2) -> bool (k,)``, a ``GridCollider``, or a
                ``(ny, nx)`` bool occupancy grid (then ``cell_size`` is required).
            cell_size: Cell size of an occupancy grid.

        Returns:
            The number of splashes removed.

        Raises:
            TypeError / ValueError: naming the argument, for a ``dt`` that is not a finite
            number >= 0 or a ``gravity`` that is not a finite pair.
        """
        dt = at_least("dt", dt, 0.0)
        g = np.array(pair("gravity", gravity))
        collide = self._collider(is_solid_or_water, cell_size)
        n = self.count
        if n == 0:
            return 0
        pos = self.positions[:n]
        vel = self.velocities[:n]
        vel += g * dt
        new = pos + vel * dt
        hit = self._segment_hits(collide, pos, new)
        self.ages[:n] += dt
        dead = hit | (self.ages[:n] > self.lifetime)
        pos[:] = new
        keep = ~dead
        k = int(np.count_nonzero(keep))
        if k < n:
            self.positions[:k] = pos[keep]
            self.velocities[:k] = vel[keep]
            self.colors[:k] = self.colors[:n][keep]
            self.ages[:k] = self.ages[:n][keep]
        self.count = k
        return n - k

    def _segment_hits(self, collide: Collider, start: Points, end: Points) -> npt.NDArray[np.bool_]:
        """Whether the segment start->end touches a blocked point, probed at ``probe`` spacing.

        The probe spacing is half a cell for a ``GridCollider`` (so a one-cell wall cannot be
        skipped), else ``self.probe``; at most ``MAX_PROBES`` points per segment.
        """
        spacing = 0.5 * collide.cell_size if isinstance(collide, GridCollider) else self.probe
        step = end - start
        longest = float(np.sqrt(np.max(np.einsum("ij,ij->i", step, step))))
        k = int(min(max(np.ceil(longest / spacing), 1), self.MAX_PROBES))
        hit = collide(start)
        for t in np.arange(1, k + 1) / k:  # k probes, each vectorised over all splashes
            hit |= collide(start + t * step)
        return hit

    @staticmethod
    def _collider(
        spec: Collider | GridCollider | npt.ArrayLike, cell_size: float | None
    ) -> Collider:
        if callable(spec):
            return spec
        grid = np.asarray(spec)
        if grid.ndim != 2:
            raise TypeError("is_solid_or_water must be a callable or a (ny, nx) occupancy grid")
        if cell_size is None:
            raise ValueError("an occupancy grid needs cell_size")
        return GridCollider(cell_size, solid=grid.astype(bool))

    # --- drawing --------------------------------------------------------------------------------
    def _ensure_gl(self) -> dict[str, Any]:
        if self._gl is None:
            ctx = current_ctx()
            corners = quad_buffer(ctx, 0.0, 1.0)
            self._gl = {
                "ctx": ctx,
                "prog": ctx.program(
                    vertex_shader=shaders.STREAK_VS, fragment_shader=shaders.STREAK_FS
                ),
                "inst": InstanceBuffer(
                    ctx, {"pos": 2, "vel": 2, "color": 4}, instanced_quads(ctx, corners)
                ),
            }
        return self._gl

    def draw(self) -> None:
        """Draw live splashes as streaks along their velocity, fading with age."""
        n = self.count
        if n == 0:
            return
        state = self._ensure_gl()
        inst: InstanceBuffer = state["inst"]
        rows = inst.reserve(n)
        rows["pos"][:] = self.positions[:n]
        rows["vel"][:] = self.velocities[:n]
        color = rows["color"]
        color[:] = self.colors[:n]
        color *= 1.0 / 255.0
        color[:, 3] *= np.clip(1.0 - self.ages[:n] / self.lifetime, 0.0, 1.0)
        inst.upload(n)
        prog = state["prog"]
        set_uniforms(
            prog,
            u_streak_time=self.streak_time,
            u_min_length=self.width,
            u_width=self.width,
        )
        ctx = state["ctx"]
        with blending(ctx, ctx.BLEND_DEFAULT):
            inst.geometry.render(prog, vertices=4, instances=n)
