"""Rendering a level headless to PNG, GIF or MP4 (``fluidworld render``, headless ``play``).

The kernels are compiled first, in their own stage with its own progress
(:func:`fluidworld.warmup.compile_kernels`: "compiling physics kernels (first run only)"), so
that the render bar's ETA is sane from its first update and the reported ms/step leaves
compilation out. Progress bars are ``tqdm``'s, on stderr.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import arcade
import numpy as np
import numpy.typing as npt

from ..render.offscreen import offscreen_window, read_pixels
from ..warmup import compile_kernels
from .base import Level
from .game import Game
from .loader import LevelSession
from .play import _factory

__all__ = ["RenderResult", "render_level"]

#: Default maximum image size of ``render_level`` when the level does not say.
RENDER_MAX = (960, 540)
GIF_MAX = (720, 405)


@dataclass(frozen=True)
class RenderResult:
    """What :func:`render_level` wrote.

    Attributes:
        path: Output file. frames: Frames written. size: Image size ``(w, h)``.
        ms_per_step: Mean wall time of a physics step. error: The level error, if any.
    """

    path: Path
    frames: int
    size: tuple[int, int]
    ms_per_step: float
    error: Any = None


def _bar(total: int, label: str, stream: IO[str] | None) -> Any:
    """A tqdm bar over physics steps on ``stream`` (``None``: a silent one). Off a terminal
    (a log, a pipe) it redraws at most every 5 s."""
    from tqdm import tqdm

    tty = stream is not None and bool(getattr(stream, "isatty", lambda: False)())
    return tqdm(total=total, desc=label, unit="step", file=stream, disable=stream is None,
                dynamic_ncols=True, mininterval=0.1 if tty else 5.0)


def _fit_size(level: Level | None, limit: tuple[int, int]) -> tuple[int, int]:
    if level is None:
        return limit
    w, h = level.preferred_window_size(limit)
    shrink = min(1.0, limit[0] / w, limit[1] / h)  # a level's window_size, fitted too
    w, h = max(2, round(w * shrink)), max(2, round(h * shrink))
    return (w - w % 2, h - h % 2)  # even sizes for video encoders


def _open_video_writer(path: Path, fps: float) -> Any:
    try:
        import imageio.v2 as iio2

        return iio2.get_writer(path, fps=fps, codec="libx264", quality=7, macro_block_size=2)
    except Exception as exc:
        raise RuntimeError(
            f"writing {path.name} needs an ffmpeg backend for imageio "
            f"(pip install imageio-ffmpeg), or use .gif/.png: {exc}"
        ) from exc


def render_level(
    spec: str | Path | type[Level],
    out: str | Path,
    *,
    frames: int = 60,
    steps_per_frame: int | None = None,
    warmup: int = 0,
    size: tuple[int, int] | None = None,
    mode: str | None = None,
    debug: bool = False,
    hud: bool = False,
    progress: IO[str] | None = sys.stderr,
    window: arcade.Window | None = None,
    on_frame: Callable[[int, npt.NDArray[np.uint8]], Any] | None = None,
    solver: str | None = None,
) -> RenderResult:
    """Step a level headless and write its frames to ``out`` (.png: the last frame; .gif; .mp4).

    Args:
        spec: Level name, module, file or class.
        out: Output path; the suffix picks the format.
        frames: Frames to write.
        steps_per_frame: Physics steps between frames (default 1; 2 for GIF, whose frame delays
            are whole centiseconds).
        warmup: Physics steps before the first frame.
        size: Image size (default: the level's view fitted into 960x540, 720x405 for GIF). An
            existing arcade window's size wins (arcade has one window per process).
        mode: Fluid look (default: the level's).
        debug: Draw the debug overlay.
        hud: Draw the HUD line.
        progress: Stream for the progress bars, the kernels' compile stage (first run only)
            and the render (``None``: silent).
        window: Window to draw into (default: the current one or a new hidden one).
        on_frame: Called with ``(index, rgba)`` for every frame written.
        solver: Fluid solver by name, instead of the level's.

    Returns:
        A :class:`RenderResult`; its ``ms_per_step`` is the mean of the rendered steps with
        compilation left out (it happens before, in :func:`fluidworld.warmup.compile_kernels`).

    Raises:
        ValueError: Unknown output format or non-positive counts.
        RuntimeError: MP4 without an ffmpeg backend.
    """
    out = Path(out)
    fmt = out.suffix.lower()
    if fmt not in (".png", ".gif", ".mp4"):
        raise ValueError(f"output must end in .png, .gif or .mp4, got {out.name!r}")
    if frames < 1 or warmup < 0 or (steps_per_frame is not None and steps_per_frame < 1):
        raise ValueError("need frames >= 1, warmup >= 0 and steps_per_frame >= 1")
    spf = steps_per_frame or (2 if fmt == ".gif" else 1)
    session = LevelSession(spec, world_factory=_factory(solver))
    if session.level is None:
        return RenderResult(out, 0, (0, 0), 0.0, session.error)
    win = window
    if win is None:
        win = offscreen_window(*(size or _fit_size(session.level, GIF_MAX if fmt == ".gif"
                                                   else RENDER_MAX)))
    game = Game(session, win, mode=mode, debug=debug, hud=hud, show_help=False)
    compile_kernels(session.world, progress=progress)
    dt = float(session.world.fluid.params.dt)
    out.parent.mkdir(parents=True, exist_ok=True)
    writer = _open_video_writer(out, 1.0 / (dt * spf)) if fmt == ".mp4" else None
    gif_frames: list[npt.NDArray[np.uint8]] = []
    last: npt.NDArray[np.uint8] | None = None
    bar = _bar(warmup + frames * spf, f"rendering {session.name}", progress)
    step_ms = 0.0
    steps = 0

    def step() -> None:
        nonlocal step_ms, steps
        t0 = time.perf_counter()
        game.fixed_update(dt)
        step_ms += (time.perf_counter() - t0) * 1e3
        steps += 1
        bar.update(1)

    try:
        bar.set_postfix_str("warm-up", refresh=False)
        for _ in range(warmup):
            step()
        for frame in range(frames):
            bar.set_postfix_str(f"frame {frame + 1}/{frames}", refresh=False)
            for _ in range(spf):
                step()
            game.draw()
            rgba = read_pixels(win)
            last = np.ascontiguousarray(rgba[:, :, :3])
            if on_frame is not None:
                on_frame(frame, rgba)
            if writer is not None:
                writer.append_data(last)
            elif fmt == ".gif":
                gif_frames.append(last)
    finally:
        bar.close()
        if writer is not None:
            writer.close()
    _write_image(out, fmt, last, gif_frames, 1000.0 * dt * spf)
    game.fluid_renderer.release()
    h, w = last.shape[:2] if last is not None else (0, 0)
    return RenderResult(out, frames, (w, h), step_ms / max(steps, 1), session.error)


def _write_image(out: Path, fmt: str, last: npt.NDArray[np.uint8] | None,
                 gif_frames: list[npt.NDArray[np.uint8]], frame_ms: float) -> None:
    from PIL import Image

    if fmt == ".png" and last is not None:
        Image.fromarray(last).save(out)
    elif fmt == ".gif" and gif_frames:
        import imageio.v3 as iio

        iio.imwrite(out, np.stack(gif_frames), extension=".gif", duration=frame_ms, loop=0)
