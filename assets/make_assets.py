"""Generate the body textures in this folder with Pillow (deterministic; no downloads).

Run from anywhere::

    python assets/make_assets.py            # writes the PNGs next to this script
    python assets/make_assets.py --out DIR  # or elsewhere

Each image is drawn at 4x and downsampled, which gives clean antialiased edges. The image's
x axis is the body's local x axis and the image's "up" is the body's local y axis.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path

from PIL import Image, ImageDraw

SS = 4  # supersampling factor

RGBA = tuple[int, int, int, int]


def _canvas(w: int, h: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    img = Image.new("RGBA", (w * SS, h * SS), (0, 0, 0, 0))
    return img, ImageDraw.Draw(img)


def _finish(img: Image.Image) -> Image.Image:
    return img.resize((img.width // SS, img.height // SS), Image.Resampling.LANCZOS)


def _s(*values: float) -> list[float]:
    return [v * SS for v in values]


def crate() -> Image.Image:
    """A wooden crate: frame, horizontal boards and a diagonal brace."""
    w = h = 128
    img, d = _canvas(w, h)
    wood, dark, edge = (176, 122, 62, 255), (120, 80, 38, 255), (84, 54, 26, 255)
    d.rectangle(_s(0, 0, w - 1, h - 1), fill=wood, outline=edge, width=3 * SS)
    for k in range(1, 4):
        y = k * h / 4
        d.line(_s(12, y, w - 12, y), fill=dark, width=2 * SS)
    d.line(_s(16, h - 16, w - 16, 16), fill=dark, width=12 * SS)
    d.line(_s(16, h - 16, w - 16, 16), fill=wood, width=6 * SS)
    d.rectangle(_s(0, 0, w - 1, h - 1), outline=edge, width=12 * SS)
    d.rectangle(_s(6, 6, w - 7, h - 7), outline=(140, 96, 48, 255), width=2 * SS)
    for cx, cy in ((8, 8), (w - 8, 8), (8, h - 8), (w - 8, h - 8)):
        d.ellipse(_s(cx - 3, cy - 3, cx + 3, cy + 3), fill=(60, 60, 64, 255))
    return _finish(img)


def ball() -> Image.Image:
    """A beach ball: coloured sectors (so rotation is visible) and a highlight."""
    w = h = 128
    img, d = _canvas(w, h)
    colors: list[RGBA] = [
        (230, 60, 50, 255),
        (250, 250, 245, 255),
        (40, 120, 220, 255),
        (250, 250, 245, 255),
        (250, 200, 40, 255),
        (250, 250, 245, 255),
    ]
    box = _s(2, 2, w - 3, h - 3)
    for k, col in enumerate(colors):
        d.pieslice(box, k * 60, (k + 1) * 60, fill=col)
    d.ellipse(box, outline=(40, 40, 48, 255), width=3 * SS)
    d.ellipse(_s(w / 2 - 10, h / 2 - 10, w / 2 + 10, h / 2 + 10), fill=(240, 240, 235, 255))
    shine = Image.new("RGBA", img.size, (0, 0, 0, 0))
    ImageDraw.Draw(shine).ellipse(_s(30, 24, 52, 40), fill=(255, 255, 255, 140))
    img.alpha_composite(shine)
    return _finish(img)


def barrel() -> Image.Image:
    """An upright wooden barrel with two iron hoops."""
    w, h = 96, 128
    img, d = _canvas(w, h)
    wood, edge, iron = (150, 95, 50, 255), (90, 55, 28, 255), (70, 72, 78, 255)
    bulge = 10
    pts = []
    for k in range(41):
        t = k / 40
        x = bulge * math.sin(math.pi * t)
        pts.append((4 + bulge - x, t * (h - 1)))
    pts += [(w - 1 - x, y) for x, y in reversed(pts)]
    d.polygon([(x * SS, y * SS) for x, y in pts], fill=wood, outline=edge)
    for k in range(1, 5):
        x = k * w / 5
        d.line(_s(x, 4, x, h - 5), fill=edge, width=2 * SS)
    for y in (22, h - 23):
        inset = 4 + bulge - bulge * math.sin(math.pi * y / (h - 1))
        d.rectangle(_s(inset, y - 5, w - 1 - inset, y + 5), fill=iron)
    d.rectangle(_s(14, 0, w - 15, 6), fill=edge)
    d.rectangle(_s(14, h - 7, w - 15, h - 1), fill=edge)
    return _finish(img)


def anvil() -> Image.Image:
    """A dark iron anvil silhouette: horn on the left, heel on the right, wide base."""
    w, h = 128, 80
    img, d = _canvas(w, h)
    iron, light = (58, 60, 68, 255), (110, 114, 126, 255)
    # image y grows downwards: top face at y=8
    face = [(30, 8), (122, 8), (122, 30), (100, 30), (90, 44), (38, 44), (30, 30), (4, 18)]
    d.polygon([(x * SS, y * SS) for x, y in face], fill=iron)
    d.rectangle(_s(44, 44, 86, 60), fill=iron)
    d.polygon([(x * SS, y * SS) for x, y in [(30, 79), (100, 79), (88, 60), (42, 60)]], fill=iron)
    d.line(_s(30, 9, 121, 9), fill=light, width=2 * SS)
    return _finish(img)


def plank() -> Image.Image:
    """A long wooden plank with grain lines and nails at both ends."""
    w, h = 256, 32
    img, d = _canvas(w, h)
    wood, edge, grain = (196, 146, 84, 255), (110, 74, 36, 255), (160, 112, 60, 255)
    d.rectangle(_s(0, 0, w - 1, h - 1), fill=wood, outline=edge, width=2 * SS)
    for k, y in enumerate((9, 16, 23)):
        d.arc(_s(20 + 30 * k, y - 6, 200 + 20 * k, y + 6), 190, 350, fill=grain, width=SS)
    for x in (10, w - 11):
        for y in (9, h - 10):
            d.ellipse(_s(x - 2, y - 2, x + 2, y + 2), fill=(60, 60, 64, 255))
    return _finish(img)


def boat() -> Image.Image:
    """A small boat seen from the side: red hull, white stripe, cabin; deck at mid height."""
    w, h = 192, 96
    img, d = _canvas(w, h)
    hull, stripe, cabin = (190, 50, 45, 255), (245, 245, 240, 255), (235, 230, 215, 255)
    hull_pts = [(0, 44), (191, 44), (168, 95), (22, 95)]
    d.polygon([(x * SS, y * SS) for x, y in hull_pts], fill=hull)
    d.polygon([(x * SS, y * SS) for x, y in [(3, 52), (188, 52), (185, 58), (6, 58)]], fill=stripe)
    d.rectangle(_s(60, 14, 130, 44), fill=cabin, outline=(90, 90, 96, 255), width=2 * SS)
    for x in (72, 94, 116):
        d.rectangle(_s(x - 6, 22, x + 6, 32), fill=(70, 140, 200, 255))
    d.line(_s(150, 44, 150, 0), fill=(80, 60, 40, 255), width=3 * SS)
    return _finish(img)


MAKERS: dict[str, Callable[[], Image.Image]] = {
    "crate": crate,
    "ball": ball,
    "barrel": barrel,
    "anvil": anvil,
    "plank": plank,
    "boat": boat,
}


def main(argv: list[str] | None = None) -> None:
    """Write every texture as ``NAME.png``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, make in MAKERS.items():
        path = args.out / f"{name}.png"
        make().save(path, optimize=True)
        print(path)


if __name__ == "__main__":
    main()
