"""The ``fluidworld`` command line (also ``python -m fluidworld``).

::

    fluidworld play [LEVEL]                     # play in a window (default: floating_crates)
    fluidworld render LEVEL --frames N --out x.gif|x.png|x.mp4
    fluidworld levels                           # built-in levels with their titles
    fluidworld bench [NAME ...] [-- ARGS]       # run the scripts in benchmarks/
    fluidworld bench --startup [LEVEL]          # seconds to the first frame, cold and warm
    fluidworld bench --profile [LEVEL]          # each stage's ms/step and share, threads used
    fluidworld info                             # versions, GL renderer, numba threads

LEVEL is a built-in name (``harbor``), a module (``fluidworld.demos.harbor``) or a file
(``my_level.py``).
arcade is imported only by the commands that draw, so ``levels``, ``bench`` and ``--help`` work
without any GL.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .fluid.solvers import SOLVER_NAMES

if TYPE_CHECKING:
    from .levels import LevelSource

__all__ = ["main", "has_display", "parse_size"]

OUTPUT_FORMATS = (".png", ".gif", ".mp4")
BENCHMARKS_DIR = Path(__file__).resolve().parents[1] / "benchmarks"


class CliError(Exception):
    """A user error: printed as ``fluidworld: error: ...`` with exit status 2."""


def has_display() -> bool:
    """Whether a window can be opened: always off Linux; on Linux, X11 or Wayland is set."""
    if not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def headless_requested() -> bool:
    """Whether ``ARCADE_HEADLESS`` is set (arcade then renders through EGL, no window)."""
    return bool(os.environ.get("ARCADE_HEADLESS"))


def parse_size(text: str) -> tuple[int, int]:
    """Parse ``"960x540"`` into ``(960, 540)``.

    >>> parse_size("640x360")
    (640, 360)
    """
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 960x540, got {text!r}") from None
    if not (16 <= w <= 8192 and 16 <= h <= 8192):
        raise argparse.ArgumentTypeError(f"size must be between 16 and 8192 pixels, got {text!r}")
    return (w, h)


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {v}")
    return v


def _non_negative_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {v}")
    return v


def _output_path(text: str) -> Path:
    path = Path(text)
    if path.suffix.lower() not in OUTPUT_FORMATS:
        raise argparse.ArgumentTypeError(
            f"unsupported output {text!r}: the file name must end in {', '.join(OUTPUT_FORMATS)}"
        )
    return path


def check_output_path(path: Path) -> None:
    """Fail before any frame is rendered when ``path`` cannot be written: its folder is made
    (as the renderer would) and a scratch file is created and removed there.

    Raises:
        CliError: ``path`` is a folder, a parent is a file, or the folder cannot be written.
    """
    if path.is_dir():
        raise CliError(f"--out {str(path)!r} is a folder; give a file name ending in "
                       f"{', '.join(OUTPUT_FORMATS)}")
    blocker = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        raise CliError(f"cannot write --out {str(path)!r}: {str(blocker)!r} is a file, "
                       "not a folder")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".fluidworld-"):
            pass
        if path.exists() and not os.access(path, os.W_OK):
            raise PermissionError(13, "Permission denied")
    except OSError as exc:
        raise CliError(f"cannot write --out {str(path)!r}: {exc.strerror or exc}") from None


# ------------------------------------------------------------------------------------ commands
def _add_render_options(p: argparse.ArgumentParser, *, frames_default: int | None) -> None:
    p.add_argument("--frames", type=_positive_int, default=frames_default,
                   help="frames to write (PNG keeps the last one)")
    p.add_argument("--steps-per-frame", type=_positive_int, default=None, metavar="K",
                   help="physics steps (1/60 s) between frames (default 1; 2 for GIF)")
    p.add_argument("--warmup", type=_non_negative_int, default=0, metavar="STEPS",
                   help="physics steps to run before the first frame")
    p.add_argument("--size", type=parse_size, default=None, metavar="WxH",
                   help="image size in pixels (default: the level's view, at most 960x540)")
    p.add_argument("--mode", choices=("liquid", "sprites"), default=None,
                   help="fluid look (default: the level's)")
    p.add_argument("--debug", action="store_true", help="draw the debug overlay")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--solver", choices=SOLVER_NAMES, default=None,
                   help="fluid solver (default: the level's, srd)")


def video_backend() -> str | None:
    """The imageio backend that can write MP4 here (``"imageio-ffmpeg"``, ``"pyav"``), or None."""
    import importlib.util

    for module, name in (("imageio_ffmpeg", "imageio-ffmpeg"), ("av", "pyav")):
        if importlib.util.find_spec(module) is not None:
            return name
    return None


def cmd_render(args: argparse.Namespace) -> int:
    """``fluidworld render``: step a level headless and write PNG/GIF/MP4."""
    if args.out is None:
        raise CliError("render needs --out FILE.png|.gif|.mp4")
    if args.out.suffix.lower() == ".mp4" and video_backend() is None:
        raise CliError("writing .mp4 needs an ffmpeg backend for imageio: "
                       "pip install imageio-ffmpeg (or write .gif / .png, which need nothing)")
    os.environ.setdefault("ARCADE_HEADLESS", "1")
    from .levels import LevelError, resolve_level

    try:
        resolve_level(args.level)
    except LevelError as exc:
        raise CliError(str(exc)) from None
    check_output_path(args.out)
    from .levels.headless import render_level

    try:
        result = render_level(
            args.level,
            args.out,
            frames=args.frames,
            steps_per_frame=args.steps_per_frame,
            warmup=args.warmup,
            size=args.size,
            mode=args.mode,
            debug=args.debug,
            progress=None if args.quiet else sys.stderr,
            solver=args.solver,
        )
    except (RuntimeError, ValueError) as exc:
        raise CliError(str(exc)) from None
    if result.error is not None:
        print(f"fluidworld: level error: {result.error}", file=sys.stderr)
        if result.frames == 0:
            return 1
    print(f"wrote {result.path} ({result.frames} frames, {result.size[0]}x{result.size[1]}, "
          f"{result.ms_per_step:.1f} ms/step)")
    return 0 if result.error is None else 1


def _short_name(source: LevelSource, typed: str) -> str:
    """A built-in demo's short name when ``source`` is one (``fluidworld.demos.harbor``)."""
    from .levels import LevelError, resolve_level

    try:
        builtin = resolve_level(source.name)
    except LevelError:
        return typed
    return source.name if builtin.path == source.path else typed


def cmd_play(args: argparse.Namespace) -> int:
    """``fluidworld play``: a window; headless, a GIF; without a display, advice."""
    from .levels import LevelError, resolve_level

    try:
        source = resolve_level(args.level)
    except LevelError as exc:
        raise CliError(str(exc)) from None
    if headless_requested():
        args.out = args.out or (Path("out") / f"{source.name}.gif").resolve()
        if args.frames is None:
            args.frames = 150
        print(f"ARCADE_HEADLESS is set: rendering {source.name} to {args.out} instead of "
              "opening a window", file=sys.stderr)
        return cmd_render(args)
    if not has_display():
        name = _short_name(source, args.level)
        print(
            "fluidworld: no display (neither DISPLAY nor WAYLAND_DISPLAY is set), so no window "
            "can open.\n"
            f"  Render it headless instead:  fluidworld render {name} --frames 150 "
            f"--out out/{source.name}.gif\n"
            f"  or:  ARCADE_HEADLESS=1 fluidworld play {name}",
            file=sys.stderr,
        )
        return 1
    from .levels.play import play

    play(args.level, size=args.size, mode=args.mode, watch=args.watch, debug=args.debug,
         solver=args.solver)
    return 0


def cmd_levels(args: argparse.Namespace) -> int:
    """``fluidworld levels``: list the built-in levels with their titles."""
    from .levels import DEFAULT_LEVEL, LevelError, builtin_levels, level_info

    names = builtin_levels()
    if not names:
        print("no built-in levels found (is fluidworld.demos installed?)", file=sys.stderr)
        return 1
    width = max(len(n) for n in names)
    status = 0
    for name in names:
        try:
            info = level_info(name)
        except LevelError as exc:
            print(f"{name:<{width}}  (cannot load: {exc})")
            status = 1
            continue
        mark = "*" if name == DEFAULT_LEVEL else " "
        print(f"{name:<{width}} {mark} {info.title}" + (f" -- {info.description}"
                                                         if args.verbose else ""))
    print(f"\n* default.  Play one with: fluidworld play {DEFAULT_LEVEL}")
    return status


def benchmark_scripts() -> list[Path]:
    """The runnable scripts in ``benchmarks/`` (not starting with ``_``), sorted."""
    if not BENCHMARKS_DIR.is_dir():
        return []
    return sorted(p for p in BENCHMARKS_DIR.glob("*.py") if not p.name.startswith("_"))


def cmd_bench(args: argparse.Namespace) -> int:
    """``fluidworld bench``: run benchmark scripts, passing ``ARGS`` after ``--`` through;
    ``--startup``: the seconds to a first rendered frame, cold and warm."""
    if args.startup:
        return _bench_startup(args.names[0] if args.names else "floating_crates")
    if args.profile:
        return _bench_profile(args.names[0] if args.names else "floating_crates", args.steps,
                              args.warmup)
    scripts = benchmark_scripts()
    if not scripts:
        raise CliError(f"no benchmark scripts found in {BENCHMARKS_DIR} (run from a checkout)")
    by_name = {p.stem: p for p in scripts}
    if args.list:
        for p in scripts:
            print(p.stem)
        return 0
    chosen = []
    for name in args.names or list(by_name):
        stem = Path(name).stem
        if stem not in by_name:
            raise CliError(f"unknown benchmark {name!r} (available: {', '.join(by_name)})")
        chosen.append(by_name[stem])
    env = dict(os.environ)
    env.setdefault("ARCADE_HEADLESS", "1")
    status = 0
    for script in chosen:
        print(f"== {script.stem} ==", flush=True)
        rc = subprocess.call([sys.executable, str(script), *args.script_args],
                             cwd=BENCHMARKS_DIR.parent, env=env)
        if rc:
            print(f"fluidworld: benchmark {script.stem} exited with status {rc}", file=sys.stderr)
            status = rc
    return status


def _bench_startup(level: str) -> int:
    from .startup import measure_startup

    print(f"startup: seconds from a fresh process to the first rendered frame of {level} "
          "(fluidworld render --frames 1)", flush=True)
    try:
        t = measure_startup(level)
    except (RuntimeError, subprocess.TimeoutExpired) as exc:
        raise CliError(str(exc)) from None
    print(f"cold (empty numba cache, first run)  {t.cold:6.1f} s")
    print(f"warm (cached kernels, best of 3)     {t.warm:6.1f} s")
    return 0


def _bench_profile(level: str, steps: int, warmup: int) -> int:
    from .profiling import format_report, profile_level

    try:
        report = profile_level(level, steps, warmup)
    except (RuntimeError, ValueError) as exc:
        raise CliError(str(exc)) from None
    print(format_report(report, warmup))
    return 0


def _version(module: str) -> str:
    try:
        from importlib.metadata import version

        return version(module)
    except Exception:
        return "not installed"


def gl_info() -> dict[str, str]:
    """GL vendor, renderer and version from a hidden window (headless when there's no display)."""
    if not has_display():
        os.environ.setdefault("ARCADE_HEADLESS", "1")
    try:
        import arcade

        try:
            win = arcade.get_window()
            owned = False
        except RuntimeError:
            win = arcade.Window(64, 64, "fluidworld info", visible=False, antialiasing=False)
            owned = True
        ctx: Any = win.ctx  # arcade's stubs do not declare gl_version
        info = ctx.info
        out = {
            "vendor": str(info.VENDOR),
            "renderer": str(info.RENDERER),
            "version": ".".join(str(v) for v in ctx.gl_version),
            "headless": str(bool(os.environ.get("ARCADE_HEADLESS"))),
        }
        if owned:
            win.close()
        return out
    except Exception as exc:  # no GL at all: say why, don't crash
        return {"renderer": f"unavailable ({type(exc).__name__}: {exc})"}


def cmd_info(args: argparse.Namespace) -> int:
    """``fluidworld info``: versions, GL renderer and numba threading."""
    from . import __version__

    rows: list[tuple[str, str]] = [
        ("fluidworld", __version__),
        ("python", platform.python_version()),
        ("platform", platform.platform()),
    ]
    rows += [(m, _version(m)) for m in ("numpy", "numba", "pymunk", "arcade", "pillow",
                                        "imageio", "imageio-ffmpeg")]
    try:
        import numba

        config: Any = numba.config  # its settings are set at import, unknown to type checkers
        rows.append(("numba threads", f"{numba.get_num_threads()} of "
                                      f"{config.NUMBA_NUM_THREADS} (cpus: {os.cpu_count()})"))
        rows.append(("numba layer", str(config.THREADING_LAYER)))
    except Exception as exc:
        rows.append(("numba threads", f"unavailable ({exc})"))
    if args.no_gl:
        rows.append(("GL", "skipped (--no-gl)"))
    else:
        for key, value in gl_info().items():
            rows.append((f"GL {key}", value))
    rows.append(("display", "yes" if has_display() else "no"))
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    return 0


# ------------------------------------------------------------------------------------ parser
def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and documentation)."""
    from . import __version__

    ap = argparse.ArgumentParser(
        prog="fluidworld",
        description="2D game fluid: play and render levels, list them, benchmark.",
    )
    ap.add_argument("--version", action="version", version=f"fluidworld {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("play", help="play a level in a window",
                       description="Play a level. Mouse: left drags and throws bodies, right "
                                   "pours water. H shows the keys.")
    p.add_argument("level", nargs="?", default="floating_crates",
                   help="built-in name, module or .py file (default: floating_crates)")
    p.add_argument("--watch", action="store_true", help="reload the level when its file changes")
    p.add_argument("--out", type=_output_path, default=None,
                   help="headless only: where to render (default out/LEVEL.gif)")
    _add_render_options(p, frames_default=None)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("render", help="render a level headless to PNG/GIF/MP4",
                       description="Step a level headless and write its frames.")
    p.add_argument("level", help="built-in name, module or .py file")
    p.add_argument("--out", type=_output_path, default=None, required=True,
                   help="output file: .png (last frame), .gif or .mp4")
    _add_render_options(p, frames_default=60)
    p.set_defaults(func=cmd_render)

    p = sub.add_parser("levels", help="list the built-in levels")
    p.add_argument("-v", "--verbose", action="store_true", help="with descriptions")
    p.set_defaults(func=cmd_levels)

    p = sub.add_parser("bench", help="run the benchmark scripts in benchmarks/",
                       description="Run benchmark scripts; arguments after -- go to each script.")
    p.add_argument("names", nargs="*", help="benchmarks to run (default: all)")
    p.add_argument("--list", action="store_true", help="list the benchmarks")
    p.add_argument("--startup", action="store_true",
                   help="time the first rendered frame of a level (default floating_crates), "
                        "cold and warm; works without a checkout")
    p.add_argument("--profile", action="store_true",
                   help="run a level (default floating_crates) headless and print each "
                        "stage's ms/step, its share and the threads used; works without a "
                        "checkout")
    p.add_argument("--steps", type=int, default=300, help="--profile: steps measured")
    p.add_argument("--warmup", type=int, default=60, help="--profile: steps run first")
    p.set_defaults(func=cmd_bench, script_args=[])

    p = sub.add_parser("info", help="versions, GL renderer, numba threads")
    p.add_argument("--no-gl", action="store_true", help="do not open a GL context")
    p.set_defaults(func=cmd_info)
    return ap


def _quiet_stdout() -> None:
    """Point stdout at devnull, so that the interpreter's final flush does not raise again."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor (a test's captured stdout)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (also used as the console entry point)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    script_args: list[str] = []
    if "--" in args_list:
        cut = args_list.index("--")
        args_list, script_args = args_list[:cut], args_list[cut + 1:]
    parser = build_parser()
    args = parser.parse_args(args_list)
    if args.command is None:
        parser.print_help()
        return 2
    if script_args:
        if args.command != "bench":
            parser.error("arguments after -- are only for 'bench'")
        args.script_args = script_args
    try:
        status = int(args.func(args) or 0)
        sys.stdout.flush()  # a write that fails (a full disk) fails here, inside the try
        return status
    except CliError as exc:
        print(f"fluidworld: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (``fluidworld levels | head``): end quietly, as Unix tools do
        _quiet_stdout()
        return 0
    except OSError as exc:
        if exc.filename is not None:  # a file of the command's: its own message says which
            raise
        # stdout could not be written (``fluidworld levels > /dev/full``): one line, no trace
        print(f"fluidworld: error: cannot write the output: {exc.strerror or exc}",
              file=sys.stderr)
        _quiet_stdout()
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
