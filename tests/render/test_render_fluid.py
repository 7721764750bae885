"""Pixel tests of FluidRenderer in both modes (headless GL)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from render_fakes import BACKGROUND, HONEY, OIL, WATER, FakeFluid, hex_lattice, hex_pool
from render_imaging import (
    angle_diff,
    blobs,
    cosine,
    count_holes,
    grab,
    label,
    lit,
    orientation,
)

from fluidworld.render import DropletStyle, FluidRenderer, LiquidStyle

pytestmark = pytest.mark.gl

MODES = ("sprites", "liquid")


def draw(window: Any, renderer: FluidRenderer, camera: Any = None) -> np.ndarray:
    window.clear(color=BACKGROUND)
    (camera or window.default_camera).use()
    renderer.draw()
    img = grab(window)
    window.default_camera.use()
    return img


@pytest.mark.parametrize("mode", MODES)
def test_water_where_particles_are_and_nowhere_else(gl: Any, mode: str) -> None:
    pos = hex_lattice(24, 24, 104, 232, 4.0)
    renderer = FluidRenderer(FakeFluid(pos), mode=mode)
    img = draw(gl, renderer)
    mask = lit(img)
    inner = mask[40:216, 40:88]
    assert inner.mean() > 0.97, "the particle block must be covered by water"
    assert not mask[:, 128:].any(), "no water pixels in the empty right half"
    assert not mask[:8].any() and not mask[248:].any()
    water = img[40:216, 40:88, :3].reshape(-1, 3).mean(axis=0)
    assert cosine(water, WATER[:3]) > 0.99, f"water should be blue-ish, got {water}"


@pytest.mark.parametrize("mode", MODES)
def test_each_material_shows_its_colour(gl: Any, mode: str) -> None:
    parts = [hex_lattice(16 + 80 * k, 64, 16 + 80 * k + 64, 192, 4.0) for k in range(3)]
    mats = np.concatenate([np.full(len(p), k, dtype=np.uint8) for k, p in enumerate(parts)])
    renderer = FluidRenderer(FakeFluid(np.concatenate(parts), materials_=mats), mode=mode)
    img = draw(gl, renderer)
    for k, color in enumerate((WATER, OIL, HONEY)):
        x0 = 16 + 80 * k
        patch = img[90:170, x0 + 16 : x0 + 48, :3].reshape(-1, 3).astype(float)
        assert lit(patch[None]).mean() > 0.97
        mean = patch.mean(axis=0)
        assert cosine(mean, color[:3]) > 0.985, f"material {k}: {mean} vs {color}"
    # and the three blocks are separated by background
    assert not lit(img)[100:160, 84:92].any()


@pytest.mark.parametrize("mode", MODES)
def test_draw_respects_the_active_camera(gl: Any, mode: str) -> None:
    import arcade

    # a 40x40 block centred on world (1000, 500); camera looks there with zoom 2
    pos = hex_lattice(980, 480, 1020, 520, 2.0)
    renderer = FluidRenderer(FakeFluid(pos, a0=4.0), mode=mode)
    cam = arcade.Camera2D()
    cam.position = (1000.0, 500.0)
    cam.zoom = 2.0
    img = draw(gl, renderer, cam)
    ys, xs = np.nonzero(lit(img))
    assert len(xs) > 0
    assert abs(xs.mean() - 128) < 3 and abs(ys.mean() - 128) < 3
    width = xs.max() - xs.min()
    assert 76 <= width <= 100, f"40 world units at zoom 2 are ~80 px wide, got {width}"
    # with the default camera the same fluid is off-screen
    assert not lit(draw(gl, renderer)).any()


@pytest.mark.parametrize("angle", [0.0, 35.0, 90.0, 130.0])
def test_droplets_orient_along_the_pressure_gradient(gl: Any, angle: float) -> None:
    xs, ys = np.meshgrid(np.arange(40, 240, 48.0), np.arange(40, 240, 48.0))
    pos = np.column_stack([xs.ravel(), ys.ravel()])
    n = len(pos)
    g = np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))]) * 3.7
    vel = np.tile([[0.0, -300.0]], (n, 1))  # velocity disagrees: the gradient must win
    fluid = FakeFluid(pos, velocities_=vel, gradient_=np.tile(g, (n, 1)), a0=16.0)
    renderer = FluidRenderer(fluid, droplets=DropletStyle(radius=1.2, max_aspect=2.5))
    found = blobs(lit(draw(gl, renderer)))
    assert len(found) == n
    for pts in found:
        theta, elong, _ = orientation(pts)
        assert angle_diff(theta, angle) < 6.0, f"blob axis {theta:.1f} vs gradient {angle}"
        assert elong > 1.8


def test_droplets_follow_velocity_where_the_gradient_is_weak(gl: Any) -> None:
    pos = np.array([[64.0, 64.0], [192.0, 64.0], [64.0, 192.0], [192.0, 192.0]])
    grad = np.zeros((4, 2))
    grad[0] = (0.0, 5.0)  # one strong gradient sets the frame's reference
    vel = np.array([[500.0, 0.0], [300.0, 300.0], [-200.0, 400.0], [0.0, -600.0]])
    fluid = FakeFluid(pos, velocities_=vel, gradient_=grad, a0=16.0)
    renderer = FluidRenderer(fluid, droplets=DropletStyle(radius=1.2, speed_ref=200.0))
    found = sorted(
        blobs(lit(draw(gl, renderer))), key=lambda p: (round(p[:, 1].mean() / 64), p[:, 0].mean())
    )
    assert len(found) == 4
    expected = [90.0, 45.0, math.degrees(math.atan2(400, -200)), 90.0]
    for pts, want in zip(found, expected, strict=True):
        theta, elong, _ = orientation(pts)
        assert angle_diff(theta, want) < 6.0, f"{theta:.1f} vs {want:.1f}"
        assert elong > 1.8


def test_droplet_size_grows_with_density(gl: Any) -> None:
    pos = np.array([[64.0, 128.0], [192.0, 128.0]])
    fluid = FakeFluid(pos, density_=np.array([0.1, 1.6]), a0=16.0)
    found = sorted(blobs(lit(draw(gl, FluidRenderer(fluid)))), key=lambda p: p[:, 0].mean())
    assert len(found) == 2
    small, big = (len(p) for p in found)
    assert big > 2.5 * small, f"dense droplet {big} px vs sparse {small} px"
    # clamped: a huge density is no bigger than the clamp allows
    fluid.density_ = np.array([2.0, 50.0])  # both past the clamp
    found = sorted(blobs(lit(draw(gl, FluidRenderer(fluid)))), key=lambda p: p[:, 0].mean())
    a, b = (len(p) for p in found)
    assert b <= 1.05 * a


def test_liquid_pool_is_one_region_without_holes_and_has_a_lighter_flat_surface(
    gl: Any,
) -> None:
    fluid = hex_pool(256.0, 100.0, a0=8.0, x0=-16.0)  # spills past both sides
    img = draw(gl, FluidRenderer(fluid, mode="liquid"))
    mask = lit(img, 10)
    _, n = label(mask)
    assert n == 1, f"pool must be one connected region, got {n}"
    assert count_holes(mask) == 0
    assert mask[:90].all(), "every pixel inside the pool is water"
    assert not mask[112:].any()
    # flat surface: the top water pixel is at the same height in every column
    tops = np.array([np.nonzero(mask[:, x])[0].max() for x in range(8, 248)])
    assert tops.max() - tops.min() <= 1, f"surface not flat: {tops.min()}..{tops.max()}"
    top = int(np.median(tops))
    assert 100 <= top <= 108
    luma = img[..., :3].astype(float) @ np.array([0.299, 0.587, 0.114])
    line = luma[top - 1 : top + 1, 16:240].mean()
    below = luma[top - 8 : top - 5, 16:240].mean()
    assert line > below + 25, f"surface line {line:.0f} must be lighter than below {below:.0f}"
    # ... and slightly darker with depth
    assert luma[top - 10, 16:240].mean() > luma[20, 16:240].mean() + 8


def test_liquid_droplet_stays_visible_and_separate(gl: Any) -> None:
    pool = hex_lattice(0, 0, 256, 60, 4.0)
    drop = np.array([[128.0, 160.0]])
    fluid = FakeFluid(np.concatenate([pool, drop]))
    mask = lit(draw(gl, FluidRenderer(fluid, mode="liquid")), 10)
    _, n = label(mask)
    assert n == 2, "a lone particle above the pool is its own small blob"
    assert mask[160, 128]


def test_mode_switches_at_run_time(gl: Any) -> None:
    fluid = hex_pool(256.0, 80.0)
    renderer = FluidRenderer(fluid)
    sprites = draw(gl, renderer)
    renderer.mode = "liquid"
    liquid = draw(gl, renderer)
    assert renderer.toggle_mode() == "sprites"
    again = draw(gl, renderer)
    assert np.array_equal(sprites, again)
    assert np.abs(sprites.astype(int) - liquid.astype(int)).mean() > 2.0
    with pytest.raises(ValueError, match="mode must be one of"):
        renderer.mode = "metaballs"


def test_buffers_grow_and_shrink_with_the_particle_count(gl: Any) -> None:
    fluid = FakeFluid(np.array([[128.0, 128.0]]))
    renderer = FluidRenderer(fluid)
    assert lit(draw(gl, renderer)).sum() > 10
    big = hex_lattice(0, 0, 256, 256, 1.0)  # ~75k particles: forces a reallocation
    fluid.__init__(big)  # type: ignore[misc]
    assert renderer.upload() == len(big)
    assert lit(draw(gl, renderer)).mean() > 0.99
    fluid.__init__(np.zeros((0, 2)))  # type: ignore[misc]
    assert not lit(draw(gl, renderer)).any()


def test_liquid_mode_in_a_camera_viewport(gl: Any) -> None:
    import arcade

    # the camera draws into the right half of the window only
    cam = arcade.Camera2D(viewport=arcade.LBWH(128, 0, 128, 256))
    cam.position = (64.0, 128.0)
    fluid = FakeFluid(hex_lattice(0, 0, 128, 64, 4.0))
    mask = lit(draw(gl, FluidRenderer(fluid, mode="liquid"), cam), 10)
    assert not mask[:, :126].any()
    assert mask[4:56, 136:248].all()


def test_styles_validate() -> None:
    with pytest.raises(ValueError, match="radius"):
        DropletStyle(radius=0)
    with pytest.raises(ValueError, match="resolution"):
        LiquidStyle(resolution=2.0)
