"""Render frames without a screen: a hidden window, pixel read-back and a PNG frame loop.

Headless use needs ``ARCADE_HEADLESS=1`` in the environment before arcade is imported and an EGL
driver (Mesa's llvmpipe works). Windows are created with ``antialiasing=False`` so that pixels are
reproducible and reading them back needs no resolve pass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

import arcade
import numpy as np
import numpy.typing as npt
from PIL import Image

from ._checks import finite, rgba, whole

__all__ = ["Drawable", "offscreen_window", "read_pixels", "render_frames", "save_frame"]


class Drawable(Protocol):
    """Anything with a ``draw()`` method (FluidRenderer, SplashSystem, BodySprites, ...)."""

    def draw(self) -> Any: ...


def offscreen_window(
    width: int = 960, height: int = 540, *, title: str = "fluidworld"
) -> arcade.Window:
    """Return the current arcade window, or create a hidden non-antialiased one.

    arcade supports one window per process, so an existing window is reused (its size wins).

    Args:
        width: Width of a new window in pixels.
        height: Height of a new window in pixels.
        title: Title of a new window.
    """
    try:
        return arcade.get_window()
    except RuntimeError:
        return arcade.Window(width, height, title, visible=False, antialiasing=False)


def read_pixels(window: arcade.Window | None = None) -> npt.NDArray[np.uint8]:
    """Read the window's framebuffer back as an ``(height, width, 4)`` RGBA array.

    Row 0 is the *top* of the image (the usual image convention); use ``img[::-1]`` to index
    rows by screen y (y up).
    """
    win = window if window is not None else arcade.get_window()
    fb = win.ctx.screen
    width, height = fb.size
    data = fb.read(viewport=(0, 0, width, height), components=4)
    img = np.frombuffer(data, dtype=np.uint8).reshape(height, width, 4)
    return np.ascontiguousarray(img[::-1])


def save_frame(path: str | Path, window: arcade.Window | None = None) -> Path:
    """Save the window's current framebuffer as a PNG (RGB) and return the path."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.ascontiguousarray(read_pixels(window)[:, :, :3])).save(out)
    return out


def _draw_all(drawables: Drawable | Callable[[], Any] | Sequence[Any]) -> None:
    if isinstance(drawables, Sequence):
        for item in drawables:
            _draw_all(item)
    elif hasattr(drawables, "draw"):
        drawables.draw()
    else:
        drawables()


def _check_name(name: Any, n_frames: int) -> None:
    """A ``name`` pattern must give frames 0 and 1 different files (``"frame.png"`` wrote
    every frame over the last)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str pattern like 'frame_{{:05d}}.png', got {name!r}")
    try:
        first, second = name.format(0), name.format(1)
    except (IndexError, KeyError, ValueError) as exc:
        raise ValueError(f"name must format with the frame index, like "
                         f"'frame_{{:05d}}.png': {exc}") from None
    if n_frames > 1 and first == second:
        raise ValueError(f"name {name!r} gives every frame the same file: put the frame "
                         "index in it, like 'frame_{:05d}.png'")


def render_frames(
    step: Callable[[float], Any] | None,
    renderer: Drawable | Callable[[], Any] | Sequence[Any],
    n_frames: int,
    out_dir: str | Path,
    *,
    dt: float = 1.0 / 60.0,
    every: int = 1,
    size: tuple[int, int] = (960, 540),
    camera: Any = None,
    background: Iterable[int] = (12, 16, 28, 255),
    name: str = "frame_{:05d}.png",
    window: arcade.Window | None = None,
    on_frame: Callable[[int, npt.NDArray[np.uint8]], Any] | None = None,
) -> list[Path]:
    """Step a simulation and save every ``every``-th frame as PNG, headless.

    Args:
        step: Advances the simulation by ``dt`` (called once per frame), or ``None``.
        renderer: What to draw: an object with ``draw()``, a callable, or a sequence of them
            (drawn in order).
        n_frames: Number of simulation frames.
        out_dir: Folder for the PNG files (created).
        dt: Time step passed to ``step``.
        every: Save one frame in ``every``.
        size: Size of the hidden window if one must be created.
        camera: A camera (e.g. ``arcade.Camera2D``) to ``use()`` before drawing; default camera
            when ``None``.
        background: Clear colour, RGBA 0..255.
        name: File name pattern, formatted with the frame index.
        window: Window to draw into; the current one (or a new hidden one) when ``None``.
        on_frame: Called with ``(frame_index, rgba_pixels)`` for each saved frame.

    Returns:
        The paths written, in order.

    Raises:
        TypeError / ValueError: naming the argument, for ``n_frames`` < 0, ``every`` < 1, a
        non-finite ``dt``, a background that is not 3 or 4 channels of 0..255, or a ``name``
        that does not give each saved frame its own file.
    """
    n_frames, every = whole("n_frames", n_frames, 0), whole("every", every, 1)
    dt = finite("dt", dt)
    bg = rgba("background", background)
    _check_name(name, n_frames)
    win = window if window is not None else offscreen_window(*size)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for frame in range(n_frames):
        if step is not None:
            step(dt)
        if frame % every:
            continue
        win.clear(color=bg)
        if camera is not None:
            camera.use()
        else:
            win.default_camera.use()
        _draw_all(renderer)
        pixels = read_pixels(win)
        path = out / name.format(frame)
        Image.fromarray(np.ascontiguousarray(pixels[:, :, :3])).save(path)
        paths.append(path)
        if on_frame is not None:
            on_frame(frame, pixels)
    win.default_camera.use()
    return paths
