"""A picture without OpenGL: particles (and optional polygons) to a PNG with Pillow.

For looking at a scene on any machine (CI, a server) and for tests that need an image but no GL.
The real-time renderer is :mod:`fluidworld.render`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .fluid.params import _finite

__all__ = ["particles_image", "save_png"]


def particles_image(
    fluid: object,
    scale: float = 1.0,
    radius: float | None = None,
    background: tuple[int, int, int] = (18, 20, 28),
    polygons: Sequence[ArrayLike] = (),
    polygon_color: tuple[int, int, int] = (170, 120, 60),
    show_solids: bool = False,
) -> np.ndarray:
    """Rasterise a fluid (anything with ``positions``, ``materials``, ``material_colors()`` and
    ``params.width/height``) to an RGB array (rows top to bottom, y up in the world).

    Args:
        fluid: A :class:`~fluidworld.fluid.FluidSystem`, a World's fluid or a World.
        scale: Pixels per world unit.
        radius: Dot radius in pixels (default: half the rest spacing, at least 1).
        background: RGB of empty space.
        polygons: World-space polygons (k, 2) drawn filled, e.g. bodies.
        polygon_color: Their RGB.
        show_solids: Also draw solid particles (grey).
    """
    from PIL import Image, ImageDraw

    if not hasattr(fluid, "params") and hasattr(fluid, "fluid"):
        fluid = fluid.fluid  # a World: its fluid
    if not all(hasattr(fluid, a) for a in ("params", "positions", "materials", "r_l")):
        raise TypeError(f"fluid must be a FluidSystem or a World, got {type(fluid).__name__}")
    p: Any = fluid.params  # type: ignore[attr-defined]
    scale = _finite("scale", scale)
    if scale <= 0.0 or scale * max(p.width, p.height) > 16384:
        raise ValueError(f"scale must be > 0 and keep the image within 16384 pixels, got {scale}")
    if radius is not None and not 0.0 < _finite("radius", radius) <= 256.0:
        raise ValueError(f"radius must be in (0, 256] pixels, got {radius}")
    w = max(1, int(round(p.width * scale)))
    h = max(1, int(round(p.height * scale)))
    img = Image.new("RGB", (w, h), background)
    draw = ImageDraw.Draw(img)
    for poly in polygons:
        pts = np.asarray(poly, float) * scale
        draw.polygon([(x, h - 1 - y) for x, y in pts], fill=polygon_color)
    arr = np.array(img)
    r = radius if radius is not None else max(1.0, 0.5 * fluid.r_l * scale)  # type: ignore[attr-defined]
    colors = fluid.material_colors()[:, :3]  # type: ignore[attr-defined]
    pos = np.asarray(fluid.positions) * scale  # type: ignore[attr-defined]
    mats = np.asarray(fluid.materials)  # type: ignore[attr-defined]
    _splat(arr, pos, colors[mats], r)
    if show_solids:
        sp = np.asarray(fluid.solid_positions) * scale  # type: ignore[attr-defined]
        _splat(arr, sp, np.full((len(sp), 3), 150, np.uint8), max(1.0, r * 0.5))
    return arr


def _splat(arr: np.ndarray, pos: np.ndarray, rgb: np.ndarray, r: float) -> None:
    """Draw discs of radius ``r`` px (vectorised over particles, loop over the disc's offsets)."""
    h, w = arr.shape[:2]
    ri = int(np.ceil(r))
    px = np.floor(pos[:, 0]).astype(np.int64)
    py = (h - 1 - np.floor(pos[:, 1])).astype(np.int64)
    for dy in range(-ri, ri + 1):
        for dx in range(-ri, ri + 1):
            if dx * dx + dy * dy > r * r + 0.25:
                continue
            x = px + dx
            y = py + dy
            ok = (x >= 0) & (x < w) & (y >= 0) & (y < h)
            arr[y[ok], x[ok]] = rgb[ok]


def save_png(fluid: object, path: str | Path, **kwargs: object) -> Path:
    """Write :func:`particles_image` of ``fluid`` to ``path``; returns the path."""
    from PIL import Image

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(particles_image(fluid, **kwargs)).save(path)  # type: ignore[arg-type]
    return path
