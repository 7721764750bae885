"""Public surface of fluidworld.render: exports, doctests, render-without-upload semantics."""

from __future__ import annotations

import doctest
from typing import Any

import numpy as np
import pytest
from render_fakes import BACKGROUND, hex_pool
from render_imaging import grab

import fluidworld.render as render
from fluidworld.render import FluidRenderer, protocols


def test_exports_resolve() -> None:
    for name in render.__all__:
        assert getattr(render, name) is not None


def test_docstring_examples() -> None:
    result = doctest.testmod(protocols)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.gl
def test_redraw_without_upload_reuploads_when_the_mode_needs_more_data(gl: Any) -> None:
    fluid = hex_pool(256.0, 80.0)

    def frame(renderer: FluidRenderer, upload: bool) -> np.ndarray:
        gl.clear(color=BACKGROUND)
        gl.default_camera.use()
        renderer.draw(upload=upload)
        return grab(gl)

    reference = frame(FluidRenderer(fluid), upload=True)
    renderer = FluidRenderer(fluid, mode="liquid")
    frame(renderer, upload=True)  # uploads positions and materials only
    renderer.mode = "sprites"
    assert np.array_equal(frame(renderer, upload=False), reference)
    fluid.positions_[:, 1] += 50.0  # not seen until the next upload
    assert np.array_equal(frame(renderer, upload=False), reference)
    assert not np.array_equal(frame(renderer, upload=True), reference)
