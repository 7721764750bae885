"""A level as the play window and ``fluidworld render`` draw it: rounded polygons drawn as wide
as they collide, and a body whose texture cannot be loaded drawn as its shape (a warning, not
a crash of the whole run)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fluidworld.levels import Level
from fluidworld.levels.drawing import STATIC_COLOR
from fluidworld.levels.headless import render_level


class Rounded(Level):
    """A square of static polygon 60 wide with a radius of 12, in a 256 x 256 view."""

    width, height = 256.0, 256.0

    def build(self, world: Any) -> None:
        world.add_static_poly([(98, 98), (158, 98), (158, 158), (98, 158)], radius=12)


def frame_of(window: Any, level: type[Level], tmp_path: Path) -> np.ndarray:
    frames: list[np.ndarray] = []
    render_level(level, tmp_path / "f.png", frames=1, window=window, progress=None,
                 on_frame=lambda i, img: frames.append(img))
    img = frames[-1]
    return img[::-1] if img.shape[0] == window.height else img  # row 0 at the bottom


def is_wall(img: np.ndarray, x: int, y: int) -> bool:
    return bool(np.abs(img[y, x, :3].astype(int) - np.array(STATIC_COLOR[:3])).max() <= 4)


def test_a_rounded_polygon_is_drawn_as_far_out_as_it_collides(window: Any,
                                                               tmp_path: Path) -> None:
    img = frame_of(window, Rounded, tmp_path)
    for x, y in ((128, 128), (91, 128), (165, 128), (128, 91), (128, 165)):  # 7 out: inside r
        assert is_wall(img, x, y), (x, y, img[y, x])
    for x, y in ((80, 128), (176, 128), (128, 80), (88, 88)):  # beyond r (the corner: 14)
        assert not is_wall(img, x, y), (x, y, img[y, x])


def test_a_body_whose_texture_is_no_image_is_drawn_as_its_shape(window: Any,
                                                                tmp_path: Path) -> None:
    bad = tmp_path / "notes.png"
    bad.write_text("not an image")

    class Crated(Level):
        width, height = 256.0, 256.0

        def build(self, world: Any) -> None:
            world.space.gravity = (0.0, 0.0)
            world.add_box((128, 128), (60, 60), density=0.5, sprite=bad)

    with pytest.warns(RuntimeWarning, match="not an image"):
        img = frame_of(window, Crated, tmp_path)
    assert img[128, 128, :3].max() > 40  # the plain box is there


def test_a_levels_window_size_is_fitted_into_the_render_limit() -> None:
    from fluidworld.levels.headless import RENDER_MAX, _fit_size

    class Huge(Rounded):
        window_size = (3000, 2000)

    class Small(Rounded):
        window_size = (300, 200)

    assert _fit_size(Huge(), RENDER_MAX) == (810, 540)  # its shape kept, even sides
    assert _fit_size(Small(), RENDER_MAX) == (300, 200)
