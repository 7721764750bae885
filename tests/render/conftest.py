"""Fixtures for the render tests: one hidden GL window per session.

The fake fluid lives in ``render_fakes`` (re-exported here).
"""

from __future__ import annotations

import os
from typing import Any

os.environ.setdefault("ARCADE_HEADLESS", "1")  # before arcade is imported anywhere

import pytest  # noqa: E402
from render_fakes import BACKGROUND, FakeFluid, hex_lattice, hex_pool  # noqa: E402, F401

WINDOW_SIZE = (256, 256)


@pytest.fixture(scope="session")
def window() -> Any:
    """One hidden, non-antialiased window for the whole session (arcade allows one)."""
    import arcade

    try:
        win = arcade.Window(*WINDOW_SIZE, "fluidworld tests", visible=False, antialiasing=False)
    except Exception as exc:  # pragma: no cover - depends on the machine
        if os.environ.get("FLUIDWORLD_REQUIRE_GL"):
            raise
        pytest.skip(f"no OpenGL context available: {exc}")
    yield win
    win.close()


@pytest.fixture()
def gl(window: Any) -> Any:
    """The session window, cleared to black with the default camera active."""
    window.default_camera.use()
    window.clear(color=BACKGROUND)
    return window
