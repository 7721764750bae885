"""Drawing fluidworld with arcade 3 (the only package that imports arcade).

- ``FluidRenderer``: particles as Sprinkle-style droplets or as a continuous liquid body.
- ``SplashSystem``: visual-only ballistic spray, removed on contact.
- ``BodySprites``: textured sprites following pymunk bodies.
- ``DebugOverlay``: cells, pressure, solid/marked particles, velocities, stage timings.
- ``render_frames``/``read_pixels``: headless frame output.

Headless use: set ``ARCADE_HEADLESS=1`` before arcade is imported (EGL, e.g. Mesa llvmpipe).
"""

from __future__ import annotations

from .bodies import ASSETS_DIR, BodySprites, load_body_texture
from .debug import DebugOverlay
from .fluid_renderer import DropletStyle, FluidRenderer, LiquidStyle, RenderMode
from .offscreen import offscreen_window, read_pixels, render_frames, save_frame
from .protocols import FluidView, particle_spacing
from .splash import GridCollider, SplashSystem, solid_cells

__all__ = [
    "ASSETS_DIR",
    "BodySprites",
    "DebugOverlay",
    "DropletStyle",
    "FluidRenderer",
    "FluidView",
    "GridCollider",
    "LiquidStyle",
    "RenderMode",
    "SplashSystem",
    "load_body_texture",
    "offscreen_window",
    "particle_spacing",
    "read_pixels",
    "render_frames",
    "save_frame",
    "solid_cells",
]
