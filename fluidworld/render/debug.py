"""Debug overlay: grid cells coloured by density or pressure, solid and marked particles, velocity
arrows and per-stage timings.

Everything is batched: cells, markers and arrows are single instanced draw calls fed from numpy,
the grid lines are one cached ``ShapeElementList`` and the timings one ``arcade.Text``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import arcade
import numpy as np
from arcade.gl import BufferDescription
from arcade.shape_list import ShapeElementList, create_lines

from . import shaders
from ._checks import at_least, between, positive, whole
from ._gl import InstanceBuffer, blending, current_ctx, instanced_quads, set_uniforms
from .protocols import FluidView, fluid_view

__all__ = ["DebugOverlay", "GridField"]

GridField = Literal["density", "pressure"]
_FIELDS: tuple[str, ...] = ("density", "pressure")

SOLID_COLOR = (0.75, 0.75, 0.78, 0.9)
MARKED_COLOR = (1.0, 0.2, 0.2, 1.0)


class DebugOverlay:
    """Toggleable debug drawing on top of the fluid.

    Args:
        fluid: The fluid to inspect (or a World: its fluid).
        enabled: Start visible.
        show_grid: Draw grid cells coloured by ``grid_field`` (plus grid lines).
        grid_field: ``"density"`` (ratio, 0..``density_max``) or ``"pressure"`` (0..frame max).
        show_solids: Draw solid particles (grey) and marked ones (red).
        show_velocities: Draw velocity arrows for (a subsample of) fluid particles.
        show_timings: Draw the ``profile`` dict passed to ``draw()``.
        velocity_scale: Arrow length per unit speed (seconds).
        max_arrows: Subsample particles to at most this many arrows.
        density_max: Density ratio drawn in the hottest colour.
        cell_alpha: Opacity of the cell colours.

    Raises:
        TypeError / ValueError: naming the argument, for a non-number, NaN/inf or out of range.
    """

    def __init__(
        self,
        fluid: FluidView,
        *,
        enabled: bool = False,
        show_grid: bool = True,
        grid_field: GridField = "density",
        show_solids: bool = True,
        show_velocities: bool = False,
        show_timings: bool = True,
        velocity_scale: float = 0.05,
        max_arrows: int = 4000,
        density_max: float = 2.0,
        cell_alpha: float = 0.4,
    ) -> None:
        if grid_field not in _FIELDS:
            raise ValueError(f"grid_field must be one of {_FIELDS}, got {grid_field!r}")
        self.fluid = fluid_view(fluid)
        self.enabled = enabled
        self.show_grid = show_grid
        self.grid_field: str = grid_field
        self.show_solids = show_solids
        self.show_velocities = show_velocities
        self.show_timings = show_timings
        self.velocity_scale = at_least("velocity_scale", velocity_scale, 0.0)
        self.max_arrows = whole("max_arrows", max_arrows, 0)
        self.density_max = positive("density_max", density_max)
        self.cell_alpha = between("cell_alpha", cell_alpha, 0.0, 1.0)
        self._gl: dict[str, Any] | None = None
        self._grid_lines: ShapeElementList[Any] | None = None
        self._grid_key: tuple[int, int, float] | None = None

    # --- toggles ----------------------------------------------------------------------------------
    def toggle(self) -> bool:
        """Show/hide the overlay; returns the new state."""
        self.enabled = not self.enabled
        return self.enabled

    def cycle_field(self) -> str:
        """Switch the cell colouring between density and pressure; returns the new field."""
        self.grid_field = _FIELDS[(_FIELDS.index(self.grid_field) + 1) % len(_FIELDS)]
        return self.grid_field

    # --- GL resources ---------------------------------------------------------------------------
    def _ensure_gl(self) -> dict[str, Any]:
        if self._gl is not None:
            return self._gl
        ctx = current_ctx()
        unit = ctx.buffer(data=np.array([[0, 0], [1, 0], [0, 1], [1, 1]], np.float32).tobytes())
        centred = ctx.buffer(
            data=np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]], np.float32).tobytes())
        arrow = ctx.buffer(
            data=np.array(
                [[0, 0], [1, 0], [1, 0], [0.75, 0.12], [1, 0], [0.75, -0.12]], dtype=np.float32
            ).tobytes()
        )
        self._gl = {
            "ctx": ctx,
            "cell_prog": ctx.program(
                vertex_shader=shaders.CELL_VS, fragment_shader=shaders.CELL_FS
            ),
            "marker_prog": ctx.program(
                vertex_shader=shaders.MARKER_VS, fragment_shader=shaders.MARKER_FS
            ),
            "arrow_prog": ctx.program(
                vertex_shader=shaders.ARROW_VS, fragment_shader=shaders.ARROW_FS
            ),
            "cells": InstanceBuffer(ctx, {"value": 1}, instanced_quads(ctx, unit)),
            "markers": InstanceBuffer(ctx, {"pos": 2, "color": 4}, instanced_quads(ctx, centred)),
            "arrows": InstanceBuffer(
                ctx,
                {"pos": 2, "vec": 2},
                lambda instanced: ctx.geometry(
                    [BufferDescription(arrow, "2f", ["in_shape"]), *instanced], mode=ctx.LINES
                ),
            ),
            "names": arcade.Text(
                "",
                8,
                8,
                (255, 255, 255, 255),
                font_size=10,
                multiline=True,
                width=160,
                anchor_y="top",
            ),
            "values": arcade.Text(
                "",
                8,
                8,
                (255, 255, 255, 255),
                font_size=10,
                multiline=True,
                width=90,
                align="right",
                anchor_y="top",
            ),
        }
        return self._gl

    # --- drawing ----------------------------------------------------------------------------------
    def draw(self, profile: Mapping[str, float] | None = None) -> None:
        """Draw the enabled layers with the active camera (timings in screen space).

        Args:
            profile: Stage name -> milliseconds, e.g. ``world.profile``.
        """
        if not self.enabled:
            return
        state = self._ensure_gl()
        ctx = state["ctx"]
        with blending(ctx, ctx.BLEND_DEFAULT):
            if self.show_grid:
                self._draw_cells(state)
            if self.show_solids:
                self._draw_solids(state)
            if self.show_velocities:
                self._draw_arrows(state)
        if self.show_timings and profile:
            self._draw_timings(state, profile)

    def _draw_cells(self, state: dict[str, Any]) -> None:
        fluid = self.fluid
        ny, nx = (int(v) for v in fluid.grid_shape)
        a0 = float(fluid.params.a0)
        if self.grid_field == "density":
            values = fluid.cell_density
            vmax = self.density_max
        else:
            values = fluid.cell_pressure
            vmax = float(np.max(np.abs(values))) if values.size else 0.0
        cells: InstanceBuffer = state["cells"]
        rows = cells.reserve(nx * ny)
        rows["value"][:, 0] = np.asarray(values, dtype=np.float64).reshape(-1)
        cells.upload(nx * ny)
        set_uniforms(
            state["cell_prog"],
            u_cell=a0,
            u_origin=(0.0, 0.0),
            u_nx=nx,
            u_range=(0.0, max(vmax, 1e-12)),
            u_alpha=self.cell_alpha,
        )
        cells.geometry.render(state["cell_prog"], vertices=4, instances=nx * ny)
        key = (ny, nx, a0)
        if self._grid_key != key:
            xs = np.arange(nx + 1) * a0
            ys = np.arange(ny + 1) * a0
            points: list[tuple[float, float]] = []
            for x in xs:
                points += [(float(x), 0.0), (float(x), float(ys[-1]))]
            for y in ys:
                points += [(0.0, float(y)), (float(xs[-1]), float(y))]
            lines: ShapeElementList[Any] = ShapeElementList()
            lines.append(create_lines(points, (255, 255, 255, 40)))
            self._grid_lines = lines
            self._grid_key = key
        assert self._grid_lines is not None
        self._grid_lines.draw()

    def _draw_solids(self, state: dict[str, Any]) -> None:
        pos = np.asarray(self.fluid.solid_positions, dtype=np.float64).reshape(-1, 2)
        m = len(pos)
        if m == 0:
            return
        marked = np.asarray(self.fluid.solid_marked, dtype=bool).reshape(-1)[:m]
        markers: InstanceBuffer = state["markers"]
        rows = markers.reserve(m)
        rows["pos"][:] = pos
        rows["color"][:] = SOLID_COLOR
        rows["color"][marked] = MARKED_COLOR
        markers.upload(m)
        size = 0.12 * float(self.fluid.params.a0)
        set_uniforms(state["marker_prog"], u_size=size)
        markers.geometry.render(state["marker_prog"], vertices=4, instances=m)

    def _draw_arrows(self, state: dict[str, Any]) -> None:
        n = int(self.fluid.count)
        if n == 0:
            return
        stride = max(1, -(-n // max(self.max_arrows, 1)))
        pos = self.fluid.positions[:n:stride]
        vel = self.fluid.velocities[:n:stride]
        k = len(pos)
        arrows: InstanceBuffer = state["arrows"]
        rows = arrows.reserve(k)
        rows["pos"][:] = pos
        rows["vec"][:] = vel
        arrows.upload(k)
        set_uniforms(
            state["arrow_prog"],
            u_scale=self.velocity_scale,
            u_max_length=4.0 * float(self.fluid.params.a0),
            u_color=(1.0, 1.0, 0.3, 0.9),
        )
        arrows.geometry.render(state["arrow_prog"], vertices=6, instances=k)

    def _draw_timings(self, state: dict[str, Any], profile: Mapping[str, float]) -> None:
        window = arcade.get_window()
        ctx = state["ctx"]
        total = sum(float(v) for v in profile.values())
        names: arcade.Text = state["names"]
        values: arcade.Text = state["values"]
        names.text = "\n".join([*profile.keys(), "total"])
        values.text = "\n".join(
            [f"{float(ms):.2f} ms" for ms in profile.values()] + [f"{total:.2f} ms"]
        )
        top = window.height - 8
        names.position = (8, top)
        values.position = (100, top)
        previous = ctx.current_camera
        window.default_camera.use()
        try:
            names.draw()
            values.draw()
        finally:
            previous.use()
