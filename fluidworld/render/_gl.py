"""Small arcade.gl helpers shared by the renderers: growable instance buffers, palettes, state."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import arcade
import numpy as np
import numpy.typing as npt
from arcade.gl import BufferDescription

__all__ = [
    "InstanceBuffer",
    "Palette",
    "blending",
    "current_ctx",
    "instanced_quads",
    "set_uniforms",
    "quad_buffer",
    "world_to_pixel_scale",
]

_MIN_CAPACITY = 1024


def current_ctx() -> arcade.ArcadeContext:
    """The context of the current arcade window.

    Raises:
        RuntimeError: If no arcade window exists yet.
    """
    return arcade.get_window().ctx


def set_uniforms(program: Any, **values: Any) -> None:
    """Set uniforms, ignoring those the GLSL compiler optimised away."""
    for name, value in values.items():
        program.set_uniform_safe(name, value)


@contextmanager
def blending(ctx: arcade.ArcadeContext,
             func: tuple[int, int] | tuple[int, int, int, int]) -> Iterator[None]:
    """Enable blending with ``func`` for the block, then restore the previous state."""
    previous = ctx.blend_func
    with ctx.enabled(ctx.BLEND):
        ctx.blend_func = func
        try:
            yield
        finally:
            ctx.blend_func = previous


def quad_buffer(ctx: arcade.ArcadeContext, x0: float = -1.0, x1: float = 1.0) -> Any:
    """A 4-vertex triangle-strip quad spanning ``[x0, x1] x [-1, 1]`` (attribute ``in_corner``)."""
    corners = np.array([[x0, -1.0], [x1, -1.0], [x0, 1.0], [x1, 1.0]], dtype=np.float32)
    return ctx.buffer(data=corners.tobytes())


class InstanceBuffer:
    """Per-instance float32 attributes, one CPU staging array and one GPU buffer per field.

    Struct of arrays rather than one interleaved record: filling a contiguous ``(n, k)`` float32
    array from a float64 one is a single fast numpy cast, whereas scattering into an interleaved
    record is a strided copy ~10x slower. Each field ``name`` becomes the attribute ``in_name``.
    Capacity doubles when exceeded; the geometry is rebuilt then.

    Args:
        ctx: The arcade context.
        fields: Field name -> float components (1-4), in attribute order.
        make_geometry: Builds the geometry from the per-instance ``BufferDescription`` list
            (adding its own per-vertex buffers).
    """

    def __init__(
        self,
        ctx: arcade.ArcadeContext,
        fields: Mapping[str, int],
        make_geometry: Callable[[list[BufferDescription]], Any],
    ) -> None:
        self._ctx = ctx
        self.fields = dict(fields)
        self._make_geometry = make_geometry
        self.capacity = 0
        self.staging: dict[str, npt.NDArray[np.float32]] = {
            name: np.zeros((0, k), dtype=np.float32) for name, k in self.fields.items()
        }
        self.buffers: dict[str, Any] = {}
        self.geometry: Any = None
        self.count = 0

    def reserve(self, n: int) -> dict[str, npt.NDArray[np.float32]]:
        """Make room for ``n`` instances; return each field's staging rows ``[:n]`` to fill."""
        if n > self.capacity:
            capacity = max(_MIN_CAPACITY, 1 << (int(n) - 1).bit_length())
            for buf in self.buffers.values():
                buf.delete()
            self.staging = {
                name: np.zeros((capacity, k), dtype=np.float32) for name, k in self.fields.items()
            }
            self.buffers = {
                name: self._ctx.buffer(reserve=capacity * k * 4, usage="stream")
                for name, k in self.fields.items()
            }
            self.geometry = self._make_geometry(
                [
                    BufferDescription(self.buffers[name], f"{k}f", [f"in_{name}"], instanced=True)
                    for name, k in self.fields.items()
                ]
            )
            self.capacity = capacity
        return {name: arr[:n] for name, arr in self.staging.items()}

    def upload(self, n: int, fields: Iterable[str] | None = None) -> None:
        """Write the first ``n`` staging rows of ``fields`` (default: all) to the GPU."""
        self.count = n
        if n <= 0:
            return
        for name in self.fields if fields is None else fields:
            self.buffers[name].write(self.staging[name][:n].data)


class Palette:
    """Material colours in a 256x1 RGBA8 texture, read with ``texelFetch(u_palette, (id, 0))``."""

    def __init__(self, ctx: arcade.ArcadeContext) -> None:
        self._ctx = ctx
        self._key: bytes | None = None
        self.colors = np.zeros((256, 4), dtype=np.uint8)
        self.texture = ctx.texture((256, 1), components=4, dtype="f1")
        self.texture.filter = ctx.NEAREST, ctx.NEAREST

    def update(self, colors: npt.ArrayLike) -> None:
        """Upload ``colors`` ((n, 4) uint8 RGBA) if they changed since the last call."""
        arr = np.ascontiguousarray(colors, dtype=np.uint8)
        if arr.ndim != 2 or arr.shape[1] != 4 or arr.shape[0] > 256:
            raise ValueError(f"material colours must be (n<=256, 4) RGBA, got {arr.shape}")
        key = arr.tobytes()
        if key == self._key:
            return
        self._key = key
        self.colors[:] = 0
        self.colors[: arr.shape[0]] = arr
        self.texture.write(self.colors.tobytes())

    def use(self, unit: int = 0) -> None:
        """Bind the palette texture to a texture unit."""
        self.texture.use(unit)


def world_to_pixel_scale(ctx: arcade.ArcadeContext) -> float:
    """Pixels per world unit under the active projection/view matrices and viewport."""
    m = ctx.projection_matrix @ ctx.view_matrix
    # pyglet matrices are column-major: m[0], m[1] are the x/y rows of the first column.
    ndc_per_unit = float(np.hypot(m[0], m[1]))
    return ndc_per_unit * ctx.viewport[2] / 2.0


def instanced_quads(ctx: arcade.ArcadeContext, corners: Any) -> Callable[[list[Any]], Any]:
    """Geometry factory: a per-vertex ``in_corner`` triangle-strip quad plus instanced fields."""

    def make(instanced: list[Any]) -> Any:
        return ctx.geometry(
            [BufferDescription(corners, "2f", ["in_corner"]), *instanced],
            mode=ctx.TRIANGLE_STRIP,
        )

    return make
