"""DebugOverlay layers and the headless frame helper."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from render_fakes import BACKGROUND, FakeFluid, hex_lattice, hex_pool
from render_imaging import grab, lit

from fluidworld.render import DebugOverlay, FluidRenderer, render_frames

pytestmark = pytest.mark.gl


def draw(window: Any, overlay: DebugOverlay, profile: Any = None) -> np.ndarray:
    window.clear(color=BACKGROUND)
    window.default_camera.use()
    overlay.draw(profile)
    return grab(window)


def test_overlay_is_toggled_at_run_time(gl: Any) -> None:
    overlay = DebugOverlay(hex_pool(256.0, 64.0))
    assert not lit(draw(gl, overlay)).any(), "disabled by default: draws nothing"
    assert overlay.toggle() is True
    assert lit(draw(gl, overlay)).any()
    overlay.toggle()
    assert not lit(draw(gl, overlay)).any()


def test_cells_are_coloured_by_density_then_pressure(gl: Any) -> None:
    # dense block on the left (spacing 3 -> ratio ~1.8), normal block on the right (ratio 1)
    dense = hex_lattice(8, 8, 96, 96, 3.0)
    normal = hex_lattice(160, 8, 248, 96, 4.0)
    fluid = FakeFluid(np.concatenate([dense, normal]))
    overlay = DebugOverlay(fluid, enabled=True, show_solids=False, cell_alpha=1.0)
    img = draw(gl, overlay).astype(int)
    hot, cool = img[40:60, 40:60, :3].mean(axis=(0, 1)), img[40:60, 190:210, :3].mean(axis=(0, 1))
    assert hot[0] > hot[2] + 60, f"dense cells are red-ish: {hot}"
    assert cool[1] > 150 and cool[0] < 200, f"rest-density cells are green-ish: {cool}"
    empty = img[200:240, 40:200, :3]
    assert np.ptp(empty, axis=-1).max() < 12, "empty cells stay uncoloured (grey grid lines)"
    assert overlay.cycle_field() == "pressure"
    pressure = np.zeros(fluid.grid_shape)
    pressure[:12, :12] = np.linspace(9.0, 0.5, 12)[:, None]  # grows downwards, left block
    fluid.cell_pressure_ = pressure
    img = draw(gl, overlay).astype(int)
    deep, shallow = img[4, 40, :3], img[84, 40, :3]
    assert deep[0] > 100 and deep[1:].max() < 40, f"highest pressure is (dark) red: {deep}"
    assert shallow[2] > 200 and shallow[0] < 60, f"low pressure is blue: {shallow}"
    assert np.ptp(img[40:60, 190:210, :3], axis=-1).max() < 12, "zero pressure: no colour"


def test_solid_and_marked_particles_and_velocity_arrows(gl: Any) -> None:
    solids = np.array([[40.0, 200.0], [80.0, 200.0], [120.0, 200.0]])
    marked = np.array([False, True, False])
    fluid = FakeFluid(
        np.array([[128.0, 64.0]]),
        velocities_=np.array([[400.0, 0.0]]),
        solid_positions=solids,
        solid_marked=marked,
        a0=16.0,
    )
    overlay = DebugOverlay(
        fluid, enabled=True, show_grid=False, show_velocities=True, velocity_scale=0.1
    )
    img = draw(gl, overlay).astype(int)
    grey, red = img[200, 40, :3], img[200, 80, :3]
    assert grey.min() > 150 and np.ptp(grey) < 30, f"solid particles are grey: {grey}"
    assert red[0] > 200 and red[1] < 90, f"marked particles are red: {red}"
    row = lit(img.astype(np.uint8))[62:67].any(axis=0)
    xs = np.nonzero(row)[0]
    assert xs.min() <= 129 and xs.max() >= 165, "arrow of 40 units pointing +x"
    assert not row[:120].any()


def test_timings_text_is_drawn_in_screen_space(gl: Any) -> None:
    import arcade

    overlay = DebugOverlay(hex_pool(256.0, 32.0), enabled=True, show_grid=False)
    cam = arcade.Camera2D()
    cam.position = (5000.0, 5000.0)  # the world is off-screen, the text must not be
    gl.clear(color=BACKGROUND)
    cam.use()
    overlay.draw({"bin": 0.4, "local_repulsion": 2.5, "cell_pressure": 1.25})
    assert gl.ctx.current_camera is cam, "the caller's camera is restored"
    img = grab(gl)
    gl.default_camera.use()
    text = lit(img, 100)
    assert text[150:256, :200].sum() > 100, "timings are written top-left"
    assert not text[:100].any()


def test_render_frames_writes_pngs(gl: Any, tmp_path: Path) -> None:
    fluid = FakeFluid(hex_lattice(0, 0, 64, 64, 4.0), velocities_=None)
    renderer = FluidRenderer(fluid, mode="liquid")
    steps: list[float] = []

    def step(dt: float) -> None:
        steps.append(dt)
        fluid.positions_[:, 0] += 32.0  # slide the block right each frame

    paths = render_frames(step, renderer, 4, tmp_path, every=2, window=gl, background=BACKGROUND)
    assert len(steps) == 4 and [p.name for p in paths] == ["frame_00000.png", "frame_00002.png"]
    first, second = (np.asarray(Image.open(p)) for p in paths)
    assert first.shape == (256, 256, 3)
    ys, xs = np.nonzero(first[::-1].max(axis=-1) > 24)
    assert 28 <= xs.min() <= 36 and ys.max() < 72, "frame 0: block at x in [32, 96]"
    ys, xs = np.nonzero(second[::-1].max(axis=-1) > 24)
    assert 92 <= xs.min() <= 100, "frame 2: moved 64 further right"
