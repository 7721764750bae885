"""Pixel analysis for the render tests (numpy only: labelling, holes, moments)."""

from __future__ import annotations

import math
from collections import deque
from typing import Any

import numpy as np
import numpy.typing as npt

Mask = npt.NDArray[np.bool_]


def grab(window: Any) -> npt.NDArray[np.uint8]:
    """The window's pixels as (H, W, 4) RGBA with row 0 at the *bottom* (index [y, x], y up)."""
    from fluidworld.render import read_pixels

    return read_pixels(window)[::-1]


def lit(img: npt.NDArray[np.uint8], level: int = 24) -> Mask:
    """Pixels brighter than ``level`` in any channel (the background is black)."""
    return np.asarray(img[..., :3].max(axis=-1) > level)


def label(mask: Mask) -> tuple[npt.NDArray[np.int32], int]:
    """4-connected component labels (0 = background) and the number of components."""
    h, w = mask.shape
    labels = np.zeros((h, w), dtype=np.int32)
    m = mask.tolist()
    lab = labels.tolist()
    current = 0
    for y0 in range(h):
        for x0 in range(w):
            if not m[y0][x0] or lab[y0][x0]:
                continue
            current += 1
            lab[y0][x0] = current
            queue = deque([(y0, x0)])
            while queue:
                y, x = queue.popleft()
                for yy, xx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                    if 0 <= yy < h and 0 <= xx < w and m[yy][xx] and not lab[yy][xx]:
                        lab[yy][xx] = current
                        queue.append((yy, xx))
    return np.array(lab, dtype=np.int32), current


def count_holes(mask: Mask) -> int:
    """Background components that do not touch the image border (holes in the mask)."""
    labels, n = label(~mask)
    border = set(
        np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]])).tolist()
    )
    return sum(1 for k in range(1, n + 1) if k not in border)


def blobs(mask: Mask, min_pixels: int = 6) -> list[npt.NDArray[np.intp]]:
    """Pixel coordinates ``(k, 2)`` as ``(x, y)`` of each component with enough pixels."""
    labels, n = label(mask)
    out = []
    for k in range(1, n + 1):
        ys, xs = np.nonzero(labels == k)
        if len(xs) >= min_pixels:
            out.append(np.column_stack([xs, ys]))
    return out


def orientation(points: npt.NDArray[Any]) -> tuple[float, float, tuple[float, float]]:
    """Principal-axis angle (degrees in [0, 180), CCW from +x, y up), elongation, centroid."""
    pts = np.asarray(points, dtype=np.float64)
    c = pts.mean(axis=0)
    d = pts - c
    mu20 = float(np.mean(d[:, 0] ** 2))
    mu02 = float(np.mean(d[:, 1] ** 2))
    mu11 = float(np.mean(d[:, 0] * d[:, 1]))
    angle = 0.5 * math.degrees(math.atan2(2.0 * mu11, mu20 - mu02))
    common = math.sqrt(max((mu20 - mu02) ** 2 + 4 * mu11**2, 0.0))
    l1 = 0.5 * (mu20 + mu02 + common)
    l2 = 0.5 * (mu20 + mu02 - common)
    elong = math.sqrt(l1 / max(l2, 1e-9))
    return angle % 180.0, elong, (float(c[0]), float(c[1]))


def angle_diff(a: float, b: float) -> float:
    """Smallest difference between two axis angles (mod 180), in degrees."""
    d = abs(a - b) % 180.0
    return min(d, 180.0 - d)


def cosine(a: npt.ArrayLike, b: npt.ArrayLike) -> float:
    """Cosine similarity of two colour vectors (hue match, brightness-independent)."""
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y) + 1e-12))
