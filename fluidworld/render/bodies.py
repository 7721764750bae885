"""Textured sprites that follow pymunk bodies.

Angle conventions: pymunk angles are radians, counter-clockwise positive (y up); arcade 3 sprite
angles are degrees, *clockwise* positive. So ``sprite.angle = -degrees(body.angle)``.

The per-body loop in ``sync()`` runs over bodies (dozens), never over particles.
"""

from __future__ import annotations

import importlib.resources
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import arcade

from ._checks import pair, positive, rgba

__all__ = ["ASSETS_DIR", "BodySprites", "load_body_texture"]


def _assets_dir() -> Path:
    """The folder of the ``fluidworld.assets`` package (the top-level ``assets/`` in a checkout)."""
    return Path(str(importlib.resources.files("fluidworld.assets")))


ASSETS_DIR = _assets_dir()
"""Where the bundled textures (crate, ball, barrel, anvil, plank, boat) live: the
``fluidworld.assets`` package, found with ``importlib.resources`` (a checkout or a wheel)."""


def load_body_texture(name: str | Path | arcade.Texture, asset_dir: Path | None = None) -> Any:
    """Resolve a texture: an ``arcade.Texture``, a path, or a bare asset name like ``"crate"``.

    Raises:
        TypeError: ``name`` is none of those. FileNotFoundError: If no such file exists, with
            the folder that was searched. ValueError: the file is not an image that can be read.
    """
    if isinstance(name, arcade.Texture):
        return name
    if not isinstance(name, str | Path) or not str(name):
        raise TypeError(f"texture must be an asset name, a path or an arcade.Texture, "
                        f"got {name!r}")
    path = Path(name)
    if not path.suffix:
        path = path.with_suffix(".png")
    if not path.is_absolute() and not path.exists():
        path = (asset_dir or ASSETS_DIR) / path
    if not path.exists():
        raise FileNotFoundError(
            f"texture {str(name)!r} not found (looked for {path}); bundled textures: "
            f"{', '.join(sorted(p.stem for p in ASSETS_DIR.glob('*.png'))) or 'none'} "
            "(regenerate them with python -m fluidworld.assets.make_assets)"
        )
    key = (str(path.resolve()), path.stat().st_mtime_ns)
    texture = _TEXTURES.get(key)
    if texture is None:
        try:
            texture = arcade.load_texture(path)
        except OSError as exc:  # PIL's UnidentifiedImageError is one: a file that is no image
            raise ValueError(f"texture {str(name)!r} ({path}) is not an image file that "
                             f"can be read: {exc}") from exc
        _TEXTURES[key] = texture
    return texture


#: One ``arcade.Texture`` per image file (and modification time), kept alive for the process: every
#: body with the same image shares it, and arcade's atlas never sees a garbage-collected twin
#: (when a Texture is collected, arcade 3.3 can drop the atlas slot that an identical new Texture
#: then looks up: "Texture ... not found in UVData").
_TEXTURES: dict[tuple[str, int], Any] = {}


def _check_body(body: Any, offset: tuple[float, float]) -> None:
    """A TypeError unless ``body`` has what ``sync()`` reads (``local_to_world`` for an offset)."""
    needs = ("position", "angle") + (("local_to_world",) if offset != (0.0, 0.0) else ())
    missing = [a for a in needs if not hasattr(body, a)]
    if missing:
        raise TypeError(f"body must be a pymunk.Body (with {', '.join(needs)}), "
                        f"got {type(body).__name__} without {', '.join(missing)}")


@dataclass
class _Entry:
    body: Any
    sprite: arcade.Sprite
    offset: tuple[float, float]


class BodySprites:
    """A sprite list whose sprites are posed from pymunk bodies every frame.

    Args:
        asset_dir: Folder searched for bare texture names; defaults to ``ASSETS_DIR``.
        pixelated: Draw with nearest-neighbour filtering.

    Example::

        sprites = BodySprites()
        sprites.add(crate_body, "crate", 40, 40)
        # each frame
        sprites.sync()
        sprites.draw()
    """

    def __init__(self, asset_dir: str | Path | None = None, *, pixelated: bool = False) -> None:
        self.asset_dir = Path(asset_dir) if asset_dir is not None else ASSETS_DIR
        self.pixelated = pixelated
        self.sprite_list: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList(lazy=True)
        self._entries: dict[int, _Entry] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def add(
        self,
        body: Any,
        texture_name: str | Path | arcade.Texture,
        width: float,
        height: float,
        *,
        offset: tuple[float, float] = (0.0, 0.0),
        color: tuple[int, int, int, int] | None = None,
    ) -> arcade.Sprite:
        """Attach a sprite to a body.

        Args:
            body: A ``pymunk.Body`` (anything with ``position``, ``angle``, ``local_to_world``).
            texture_name: Asset name (``"crate"``), image path, or ``arcade.Texture``.
            width: Sprite width in world units (along the body's local x axis).
            height: Sprite height in world units (along the body's local y axis).
            offset: Sprite centre in the body's local frame (for shapes not centred on the body).
            color: Optional tint (RGBA).

        Returns:
            The sprite (already posed).

        Raises:
            TypeError / ValueError: naming the argument, for a body without ``position`` and
            ``angle``, a size that is not a finite number > 0, a bad offset or colour; nothing
            is registered then. FileNotFoundError: no such texture. ValueError: a texture file
            that is not an image.
        """
        local = pair("offset", offset)
        _check_body(body, local)
        w, h = positive("width", width), positive("height", height)
        tint = rgba("color", color) if color is not None else None
        if id(body) in self._entries:
            raise ValueError("this body already has a sprite; remove() it first")
        sprite = arcade.Sprite(load_body_texture(texture_name, self.asset_dir))
        sprite.width, sprite.height = w, h
        if tint is not None:
            sprite.color = tint
        entry = _Entry(body, sprite, local)
        self._pose(entry)  # before registering: a body that cannot be posed leaves no entry
        self._entries[id(body)] = entry
        self.sprite_list.append(sprite)
        return sprite

    def remove(self, body: Any) -> None:
        """Detach a body's sprite (no error if it has none)."""
        entry = self._entries.pop(id(body), None)
        if entry is not None:
            entry.sprite.remove_from_sprite_lists()

    def sprite_for(self, body: Any) -> arcade.Sprite | None:
        """The sprite attached to ``body``, if any."""
        entry = self._entries.get(id(body))
        return entry.sprite if entry is not None else None

    @staticmethod
    def _pose(entry: _Entry) -> None:
        body = entry.body
        if entry.offset == (0.0, 0.0):
            x, y = body.position
        else:
            x, y = body.local_to_world(entry.offset)
        entry.sprite.position = (float(x), float(y))
        entry.sprite.angle = -math.degrees(float(body.angle))

    def sync(self) -> None:
        """Copy every body's position and angle onto its sprite."""
        for entry in self._entries.values():
            self._pose(entry)

    def draw(self) -> None:
        """Draw the sprites with the active camera."""
        self.sprite_list.draw(pixelated=self.pixelated)
