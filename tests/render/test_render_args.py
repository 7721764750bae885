"""The render classes refuse bad arguments up front, naming them: NaN, infinite, negative or
zero sizes, colours out of 0..255, a body that is not a body (and a refused sprite leaves
nothing registered)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pymunk
import pytest
from render_fakes import FakeFluid

from fluidworld.render import (
    BodySprites,
    DebugOverlay,
    DropletStyle,
    FluidRenderer,
    GridCollider,
    LiquidStyle,
    SplashSystem,
    render_frames,
)

NAN, INF = math.nan, math.inf


def fluid() -> FakeFluid:
    return FakeFluid(np.array([[128.0, 128.0]]))


def test_a_refused_sprite_leaves_nothing_registered() -> None:
    """``add(None, ...)`` registered the entry before failing, so every later ``sync()``
    raised; now it is refused first, and the list stays usable."""
    sprites = BodySprites()
    body = pymunk.Body(1.0, 100.0)
    with pytest.raises(TypeError, match="body must be a pymunk.Body"):
        sprites.add(None, "ball", 10, 10)
    with pytest.raises(TypeError, match="local_to_world"):
        sprites.add(object(), "ball", 10, 10, offset=(5, 0))
    assert len(sprites) == 0 and len(sprites.sprite_list) == 0
    sprites.sync()
    sprites.add(body, "ball", 10, 10)
    sprites.sync()
    assert len(sprites) == 1


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"width": NAN}, ValueError, "width must be finite"),
    ({"width": INF}, ValueError, "width must be finite"),
    ({"width": -1.0}, ValueError, "width must be > 0"),
    ({"height": 0}, ValueError, "height must be > 0"),
    ({"height": "10"}, TypeError, "height"),
    ({"offset": (NAN, 0)}, ValueError, "offset"),
    ({"offset": None}, TypeError, "offset"),
    ({"color": (300, 0, 0)}, ValueError, "color"),
    ({"color": (255, 0)}, TypeError, "color"),
    ({"color": (0.5, 0, 0, 255)}, TypeError, "color"),
    ({"texture_name": None}, TypeError, "texture"),
])
def test_sprite_sizes_offsets_colours_and_textures_are_checked(
        kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    sprites = BodySprites()
    args: dict[str, Any] = {"texture_name": "crate", "width": 10.0, "height": 10.0, **kwargs}
    with pytest.raises(error, match=match):
        sprites.add(pymunk.Body(1.0, 100.0), **args)
    assert len(sprites) == 0


@pytest.mark.parametrize(("make", "error", "match"), [
    (lambda: FluidRenderer(fluid(), spacing=NAN), ValueError, "spacing must be finite"),
    (lambda: FluidRenderer(fluid(), spacing=-2.0), ValueError, "spacing must be > 0"),
    (lambda: FluidRenderer(fluid(), spacing="4"), TypeError, "spacing"),
    (lambda: FluidRenderer(FakeFluid(np.zeros((0, 2)), a0=NAN)), ValueError, "spacing"),
    (lambda: FluidRenderer(fluid(), droplets=LiquidStyle()), TypeError, "droplets"),
    (lambda: FluidRenderer(fluid(), liquid={"opacity": 1}), TypeError, "liquid"),
    (lambda: DropletStyle(radius=NAN), ValueError, "DropletStyle.radius"),
    (lambda: DropletStyle(size_max=INF), ValueError, "DropletStyle.size_max"),
    (lambda: DropletStyle(max_aspect=NAN), ValueError, "DropletStyle.max_aspect"),
    (lambda: DropletStyle(shade_dark=NAN), ValueError, "DropletStyle.shade_dark"),
    (lambda: DropletStyle(speed_ref=NAN), ValueError, "DropletStyle.speed_ref"),
    (lambda: LiquidStyle(opacity=NAN), ValueError, "LiquidStyle.opacity"),
    (lambda: LiquidStyle(opacity=1.5), ValueError, "LiquidStyle.opacity"),
    (lambda: LiquidStyle(threshold=NAN), ValueError, "LiquidStyle.threshold"),
    (lambda: LiquidStyle(splat_radius=INF), ValueError, "LiquidStyle.splat_radius"),
    (lambda: LiquidStyle(depth_range=0.0), ValueError, "LiquidStyle.depth_range"),
    (lambda: LiquidStyle(resolution=NAN), ValueError, "LiquidStyle.resolution"),
    (lambda: LiquidStyle(line_px=NAN), ValueError, "LiquidStyle.line_px"),
    (lambda: SplashSystem(width=NAN), ValueError, "width"),
    (lambda: SplashSystem(lifetime=NAN), ValueError, "lifetime"),
    (lambda: SplashSystem(spawn_chance=NAN), ValueError, "spawn_chance"),
    (lambda: SplashSystem(probe=INF), ValueError, "probe"),
    (lambda: SplashSystem(capacity=2.5), TypeError, "capacity"),
    (lambda: SplashSystem(jitter=-0.1), ValueError, "jitter"),
    (lambda: GridCollider(NAN, solid=np.zeros((2, 2))), ValueError, "cell_size"),
    (lambda: GridCollider(1.0, solid=np.zeros((2, 2)), origin=(NAN, 0)), ValueError,
     "origin"),
    (lambda: DebugOverlay(fluid(), cell_alpha=NAN), ValueError, "cell_alpha"),
    (lambda: DebugOverlay(fluid(), density_max=0.0), ValueError, "density_max"),
    (lambda: DebugOverlay(fluid(), velocity_scale=INF), ValueError, "velocity_scale"),
    (lambda: DebugOverlay(fluid(), max_arrows=-1), ValueError, "max_arrows"),
])
def test_numeric_arguments_of_the_render_classes_are_checked(
        make: Any, error: type[Exception], match: str) -> None:
    """NaN passed the old ``x <= 0`` checks (a NaN spacing drew nothing, silently)."""
    with pytest.raises(error, match=match):
        make()


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"n_frames": NAN}, TypeError, "n_frames"),
    ({"every": 0}, ValueError, "every"),
    ({"dt": NAN}, ValueError, "dt"),
    ({"background": (300, 0, 0)}, ValueError, "background"),
    ({"background": "black"}, TypeError, "background"),
    ({"n_frames": 2, "name": "same.png"}, ValueError, "same file"),
    ({"name": "frame_{x}.png"}, ValueError, "name"),
    ({"name": None}, TypeError, "name"),
])
def test_render_frames_checks_its_arguments_before_opening_a_window(
        tmp_path: Path, kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    args: dict[str, Any] = {"n_frames": 1, **kwargs}
    with pytest.raises(error, match=match):
        render_frames(None, [], out_dir=tmp_path / "frames", **args)
    assert not (tmp_path / "frames").exists()


def test_valid_arguments_are_kept() -> None:
    renderer = FluidRenderer(fluid(), spacing=np.float32(3.0))
    assert renderer.spacing == 3.0 and isinstance(renderer.spacing, float)
    splash = SplashSystem(capacity=np.int64(8), width=2)
    assert splash.capacity == 8 and splash.positions.shape == (8, 2)
    assert GridCollider(2, solid=np.zeros((2, 2))).origin == (0.0, 0.0)


@pytest.mark.parametrize(("style", "field", "value", "error"), [
    (LiquidStyle, "resolution", 0.0, ValueError),  # filled the whole window with water
    (LiquidStyle, "resolution", NAN, ValueError),
    (LiquidStyle, "opacity", "1", TypeError),
    (DropletStyle, "radius", -1.0, ValueError),
    (DropletStyle, "size_min", 2.0, ValueError),  # above size_max
])
def test_a_field_set_on_a_live_style_is_checked_and_a_bad_one_not_kept(
        style: type, field: str, value: Any, error: type[Exception]) -> None:
    s = style()
    before = getattr(s, field)
    with pytest.raises(error, match=f"{style.__name__}.{field}|size_min"):
        setattr(s, field, value)
    assert getattr(s, field) == before
    setattr(s, field, before * 0.5 if field != "opacity" else 0.5)  # a good one is kept
    assert getattr(s, field) == (before * 0.5 if field != "opacity" else 0.5)


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda s: s.spawn([(1, 1, 1), (2, 2, 2)], [(0, 0)] * 3), ValueError, "positions"),
    (lambda s: s.spawn([(1, 1)], [(NAN, 0)]), ValueError, "velocities"),
    (lambda s: s.spawn([(1, 1)], [(0, 0), (0, 0)]), ValueError, "1 positions but 2"),
    (lambda s: s.spawn([(1, 1), (2, 2)], [(0, 0)] * 2, colors=[(1, 2, 3)]), ValueError,
     "colors"),
    (lambda s: s.spawn([(1, 1)], [(0, 0)], colors=(0, 0, 300)), ValueError, "colors"),
    (lambda s: s.step(NAN, (0, -900), lambda p: np.zeros(len(p), bool)), ValueError, "dt"),
    (lambda s: s.step(-1.0, (0, -900), lambda p: np.zeros(len(p), bool)), ValueError, "dt"),
    (lambda s: s.step(0.1, (0, -900, 0), lambda p: np.zeros(len(p), bool)), TypeError,
     "gravity"),
])
def test_splash_spawn_and_step_check_their_arguments(call: Any, error: type[Exception],
                                                     match: str) -> None:
    s = SplashSystem(capacity=8)
    s.spawn([(5.0, 5.0)], [(1.0, 2.0)])
    with pytest.raises(error, match=match):
        call(s)
    assert s.count == 1 and np.isfinite(s.positions[:1]).all()  # nothing half-added
    assert s.spawn([(1, 1), (2, 2)], [(0, 0)] * 2, colors=[(1, 2, 3), (4, 5, 6)]) == 2
    assert s.colors[1:3].tolist() == [[1, 2, 3, 255], [4, 5, 6, 255]]


def test_a_texture_file_that_is_no_image_is_a_value_error(tmp_path: Path) -> None:
    bad = tmp_path / "notes.png"
    bad.write_text("not an image")
    with pytest.raises(ValueError, match="not an image"):
        BodySprites().add(pymunk.Body(1.0, 100.0), bad, 10.0, 10.0)


def test_a_world_is_drawn_as_its_fluid_and_anything_else_is_refused_by_name() -> None:
    """Issue 4 writes ``FluidRenderer(world)``: it raised ``AttributeError: 'World' object has
    no attribute 'params'`` (and so did the splashes' and the overlay's); a World now gives its
    fluid, and what is neither is a TypeError naming ``fluid``."""
    from fluidworld import World

    w = World(200, 120)
    w.add_fluid_rect(0, 0, 100, 40)
    w.step()
    assert FluidRenderer(w).fluid is w.fluid
    assert DebugOverlay(w).fluid is w.fluid
    collider = GridCollider.from_fluid(w)
    assert collider.blocked.shape == w.fluid.grid_shape
    splashes = SplashSystem(seed=1)
    w.fluid.velocities[:5] = (0.0, 900.0)  # fast: the thin ones among them may splash
    assert np.array_equal(splashes.candidates(w), splashes.candidates(w.fluid))
    for bad in (None, w.space, 3.0):
        with pytest.raises(TypeError, match="fluid must be a fluid"):
            FluidRenderer(bad)
        with pytest.raises(TypeError, match="fluid must be a fluid"):
            SplashSystem().spawn_from(bad)
