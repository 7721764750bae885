"""The ``fluidworld`` command line: render (GIF with a progress bar, PNG, MP4), play headless and
without a display, levels, bench, info, and clear messages for mistakes."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("ARCADE_HEADLESS", "1")  # before arcade is imported

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

from fluidworld.cli import build_parser, has_display, main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, ARCADE_HEADLESS="1")
    return subprocess.run([sys.executable, "-m", "fluidworld", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def gif_frames(path: Path) -> list[np.ndarray]:
    frames = []
    with Image.open(path) as im:
        for k in range(im.n_frames):
            im.seek(k)
            frames.append(np.asarray(im.convert("RGB"), dtype=int))
    return frames


def water_and_body_pixels(rgb: np.ndarray) -> tuple[int, int]:
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    water = (b > 110) & (b > r + 50)
    wood = (r > 100) & (r > b + 40) & (g > 40)  # crates, barrel, plank (brown), ball (red)
    return int(water.sum()), int(wood.sum())


@pytest.mark.gl
def test_render_gif_has_water_and_bodies_and_a_progress_bar(tmp_path: Path) -> None:
    out = tmp_path / "x.gif"
    proc = run_cli("render", "floating_crates", "--frames", "30", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "rendering floating_crates: 100%" in proc.stderr and "frame 30/30" in proc.stderr
    assert "60/60" in proc.stderr  # the bar counts steps (2 per GIF frame) and reaches full
    assert f"wrote {out}" in proc.stdout
    frames = gif_frames(out)
    assert len(frames) == 30
    for k in (0, 15, 29):
        water, bodies = water_and_body_pixels(frames[k])
        assert water > 0.1 * frames[k].shape[0] * frames[k].shape[1], f"frame {k}: no water"
        assert bodies > 500, f"frame {k}: no bodies"
    assert not np.array_equal(frames[0], frames[29])  # it moves


@pytest.mark.gl
def test_render_png_is_the_last_frame_and_play_renders_when_headless(tmp_path: Path) -> None:
    png = tmp_path / "dam.png"
    assert main(["render", "dam_break", "--frames", "3", "--out", str(png), "--quiet"]) == 0
    img = np.asarray(Image.open(png).convert("RGB"), dtype=int)
    assert water_and_body_pixels(img)[0] > 1000
    played = tmp_path / "played.png"
    assert main(["play", "dam_break", "--frames", "2", "--out", str(played), "--quiet"]) == 0
    assert played.is_file()


@pytest.mark.gl
@pytest.mark.skipif(importlib.util.find_spec("imageio_ffmpeg") is None,
                    reason="imageio-ffmpeg not installed")
def test_render_mp4(tmp_path: Path) -> None:
    import imageio.v2 as iio

    out = tmp_path / "x.mp4"
    assert main(["render", "droplet", "--frames", "8", "--out", str(out), "--quiet"]) == 0
    reader = iio.get_reader(out)
    assert reader.count_frames() == 8


def test_mp4_without_ffmpeg_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import fluidworld.cli as cli

    monkeypatch.setattr(cli, "video_backend", lambda: None)
    assert main(["render", "dam_break", "--out", str(tmp_path / "x.mp4")]) == 2
    assert "pip install imageio-ffmpeg" in capsys.readouterr().err


def test_play_without_a_display_explains_how_to_render(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    for var in ("ARCADE_HEADLESS", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(var, raising=False)
    assert not has_display()
    assert main(["play", "harbor"]) == 1
    err = capsys.readouterr().err
    assert "no display" in err
    assert "fluidworld render harbor --frames 150 --out out/harbor.gif" in err
    assert "ARCADE_HEADLESS=1 fluidworld play harbor" in err


def test_unknown_level_and_bad_options_give_clear_messages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["render", "atlantis", "--out", str(tmp_path / "a.gif")]) == 2
    err = capsys.readouterr().err
    assert "unknown level 'atlantis'" in err and "floating_crates" in err
    assert main(["play", "atlantis"]) == 2
    assert "unknown level 'atlantis'" in capsys.readouterr().err
    for args, message in (
        (["render", "harbor", "--out", "x.jpg"], "must end in .png, .gif, .mp4"),
        (["render", "harbor", "--out", "x.gif", "--frames", "0"], "expected a number >= 1"),
        (["render", "harbor", "--out", "x.gif", "--size", "big"], "size must look like"),
        (["render", "harbor"], "--out"),
        (["teleport"], "invalid choice"),
        (["levels", "--", "x"], "only for 'bench'"),
    ):
        with pytest.raises(SystemExit) as exc:
            main(args)
        assert exc.value.code == 2
        assert message in capsys.readouterr().err, args


def test_an_output_that_cannot_be_written_is_refused_before_rendering(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A parent that is a file, an output that is a folder, a folder that cannot be made: one
    line and status 2, before a frame is rendered (they were tracebacks after all frames)."""
    import fluidworld.levels.headless as headless

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("rendered although the output cannot be written")

    monkeypatch.setattr(headless, "render_level", never)
    monkeypatch.setenv("ARCADE_HEADLESS", "1")  # play renders instead of opening a window
    (tmp_path / "level.py").write_text("")
    (tmp_path / "frames.png").mkdir()
    for command in ("render", "play"):
        for out, message in (
            (tmp_path / "level.py" / "x.png", "is a file, not a folder"),
            (tmp_path / "level.py" / "a" / "x.gif", "is a file, not a folder"),
            (tmp_path / "frames.png", "is a folder"),
            (Path("/proc/fluidworld/x.png"), "cannot write --out"),
        ):
            assert main([command, "dam_break", "--out", str(out), "--quiet"]) == 2, out
            err = capsys.readouterr().err
            assert "fluidworld: error: " in err and message in err, (out, err)
            assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["frames.png", "level.py"]


def test_levels_lists_every_demo_with_its_title(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["levels"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("floating_crates") and "*" in lines[0]
    for name, title in (("harbor", "Harbor"), ("dam_break", "Dam break"),
                        ("fill_the_bucket", "Fill the bucket"), ("mixing", "Mixing")):
        assert any(line.startswith(name) and title in line for line in lines), name


def test_bench_lists_and_rejects_unknown_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--list"]) == 0
    assert "paper_table1" in capsys.readouterr().out.split()
    assert main(["bench", "warp_drive"]) == 2
    assert "unknown benchmark 'warp_drive'" in capsys.readouterr().err


def test_bench_runs_a_script_with_passed_arguments() -> None:
    proc = run_cli("bench", "paper_table1", "--", "--steps", "2")
    assert proc.returncode == 0, proc.stderr
    assert "== paper_table1 ==" in proc.stdout


def test_bench_profile_times_every_stage_of_a_level(capsys: pytest.CaptureFixture[str]) -> None:
    from fluidworld.profiling import profile_level

    r = profile_level("floating_crates", steps=4, warmup=1)
    assert r.particles > 1000 and r.bodies >= 3 and r.steps == 4
    assert list(r.stages)[:2] == ["sync_bodies", "external_forces"] and "exchange" in r.stages
    assert all(v > 0.0 for k, v in r.stages.items() if k != "events"), r.stages
    assert abs(sum(r.share(k) for k in r.stages) - 1.0) < 1e-9
    assert sum(r.threads.values()) == 4 and r.threads_chosen >= 1
    assert r.total_ms <= r.wall_ms * 1.05
    with pytest.raises(ValueError, match="steps"):
        profile_level("floating_crates", steps=0)
    assert main(["bench", "--profile", "floating_crates", "--steps", "2", "--warmup", "0"]) == 0
    out = capsys.readouterr().out
    assert "local_repulsion" in out and "%" in out and "threads: settled on" in out
    assert main(["bench", "--profile", "no_such_level", "--steps", "1"]) == 2


def test_info_prints_versions_and_threads(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", "--no-gl"]) == 0
    out = capsys.readouterr().out
    for key in ("fluidworld", "numba", "pymunk", "arcade", "numba threads"):
        assert any(line.startswith(key) for line in out.splitlines()), key


@pytest.mark.gl
def test_info_reports_the_gl_renderer(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("GL renderer"))
    if os.environ.get("FLUIDWORLD_REQUIRE_GL"):
        assert "unavailable" not in line


def test_python_dash_m_and_help() -> None:
    proc = run_cli("--help", timeout=120)
    assert proc.returncode == 0
    for command in ("play", "render", "levels", "bench", "info"):
        assert command in proc.stdout
    assert "render" in build_parser().format_help()
    assert main([]) == 2


def test_output_piped_into_a_closed_reader_ends_quietly() -> None:
    """``fluidworld levels | head -1``: no BrokenPipe traceback."""
    import subprocess
    import sys

    proc = subprocess.run(
        f"{sys.executable} -m fluidworld levels | head -1", shell=True, capture_output=True,
        text=True, timeout=120)
    assert proc.stdout.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_output_to_a_full_disk_is_one_line_not_a_traceback() -> None:
    """``fluidworld levels > /dev/full`` printed Python's traceback (ENOSPC at the exit's
    flush)."""
    proc = subprocess.run(f"{sys.executable} -m fluidworld levels > /dev/full", shell=True,
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().startswith("fluidworld: error: cannot write the output")


def test_a_folder_given_as_the_level_is_named_a_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """It said "level file not found" for a folder that exists."""
    assert main(["render", str(tmp_path), "--out", str(tmp_path / "x.png")]) == 2
    assert "is a folder" in capsys.readouterr().err
