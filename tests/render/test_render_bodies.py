"""BodySprites follow pymunk bodies: position and (counter-clockwise) angle on screen."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pymunk
import pytest
from PIL import Image
from render_fakes import BACKGROUND
from render_imaging import angle_diff, grab, lit, orientation

from fluidworld.render import ASSETS_DIR, BodySprites

TEXTURES = ("crate", "ball", "barrel", "anvil", "plank", "boat")


def draw(window: Any, sprites: BodySprites, camera: Any = None) -> np.ndarray:
    window.clear(color=BACKGROUND)
    (camera or window.default_camera).use()
    sprites.sync()
    sprites.draw()
    img = grab(window)
    window.default_camera.use()
    return img


def test_assets_exist_and_have_alpha() -> None:
    for name in TEXTURES:
        img = np.asarray(Image.open(ASSETS_DIR / f"{name}.png").convert("RGBA"))
        assert img.shape[0] >= 32 and img.shape[1] >= 32
        assert (img[..., 3] == 255).mean() > 0.3, f"{name} is mostly opaque"
    for name in ("ball", "anvil", "boat"):  # non-rectangular silhouettes
        img = np.asarray(Image.open(ASSETS_DIR / f"{name}.png").convert("RGBA"))
        assert (img[..., 3] == 0).mean() > 0.1


def test_make_assets_regenerates_every_texture(tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_assets", ASSETS_DIR / "make_assets.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(["--out", str(tmp_path)])
    for name in TEXTURES:
        fresh = np.asarray(Image.open(tmp_path / f"{name}.png").convert("RGBA"), dtype=int)
        kept = np.asarray(Image.open(ASSETS_DIR / f"{name}.png").convert("RGBA"), dtype=int)
        assert fresh.shape == kept.shape
        assert np.abs(fresh - kept).mean() < 1.0, f"{name}.png is stale: rerun make_assets.py"


@pytest.mark.gl
@pytest.mark.parametrize("degrees", [0.0, 30.0, 75.0, -40.0])
def test_sprite_is_drawn_at_the_body_position_and_angle(gl: Any, degrees: float) -> None:
    body = pymunk.Body(1.0, 100.0)
    body.position = (120.0, 140.0)
    body.angle = math.radians(degrees)  # pymunk: counter-clockwise
    sprites = BodySprites()
    sprites.add(body, "plank", 160, 20)
    img = draw(gl, sprites)
    theta, elong, (cx, cy) = orientation(np.argwhere(lit(img, 30))[:, ::-1])
    assert abs(cx - 120) < 1.5 and abs(cy - 140) < 1.5
    assert angle_diff(theta, degrees % 180) < 2.0, f"{theta:.1f} vs {degrees}"
    assert elong > 5


@pytest.mark.gl
def test_sync_follows_the_body_and_the_camera(gl: Any) -> None:
    import arcade

    space = pymunk.Space()
    space.gravity = (0.0, -900.0)
    body = pymunk.Body(1.0, pymunk.moment_for_box(1.0, (30, 30)))
    body.position = (1000.0, 2000.0)
    space.add(body, pymunk.Poly.create_box(body, (30, 30)))
    sprites = BodySprites()
    sprites.add(body, "crate", 30, 30)
    cam = arcade.Camera2D()
    cam.position = (1000.0, 2000.0)
    for _ in range(20):
        space.step(1 / 60)
    img = draw(gl, sprites, cam)
    ys, xs = np.nonzero(lit(img, 30))
    expected_y = 128 + (body.position.y - 2000.0)
    assert body.position.y < 1995.0
    assert abs(xs.mean() - 128) < 1.0 and abs(ys.mean() - expected_y) < 1.0
    assert 28 <= xs.max() - xs.min() + 1 <= 32


@pytest.mark.gl
def test_offset_and_remove(gl: Any) -> None:
    body = pymunk.Body(1.0, 100.0)
    body.position = (128.0, 128.0)
    body.angle = math.pi / 2  # local +x points up
    sprites = BodySprites()
    sprites.add(body, "ball", 20, 20, offset=(50.0, 0.0))
    ys, xs = np.nonzero(lit(draw(gl, sprites), 30))
    assert abs(xs.mean() - 128) < 1.5 and abs(ys.mean() - 178) < 1.5
    with pytest.raises(ValueError, match="already has a sprite"):
        sprites.add(body, "ball", 20, 20)
    sprites.remove(body)
    assert len(sprites) == 0
    assert not lit(draw(gl, sprites), 30).any()
    with pytest.raises(FileNotFoundError, match="make_assets"):
        sprites.add(body, "no-such-texture", 10, 10)


def test_textures_are_loaded_once_and_shared(tmp_path: Any) -> None:
    """Bodies with the same image share one Texture (arcade's atlas can lose the slot of a
    collected twin); an edited file is loaded again."""
    import os

    from fluidworld.render.bodies import load_body_texture

    assert load_body_texture("crate") is load_body_texture("crate")
    path = tmp_path / "thing.png"
    Image.new("RGBA", (4, 4), (255, 0, 0, 255)).save(path)
    first = load_body_texture(path)
    assert load_body_texture(str(path)) is first
    Image.new("RGBA", (4, 4), (0, 255, 0, 255)).save(path)
    os.utime(path, ns=(1, 1))
    assert load_body_texture(path) is not first
