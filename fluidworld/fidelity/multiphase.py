"""Multiphase: layering by density and immiscible interfaces, at the game preset.

Scenes (each built from the public :class:`~fluidworld.World` API, a 400 x 300 tank):

* ``oil under water`` -- a layer of oil laid on the floor under water. Oil (0.8) is lighter:
  after 15 s the fraction of oil particles above the water's median height (theory: all of it,
  the oil floats on top; acceptance >= 0.9).
* ``honey over water`` -- honey (1.4) laid on top of water: fraction below the water's median
  height after 15 s (theory 1, acceptance >= 0.9).
* ``two-layer tank`` -- oil laid over water at rest for 10 s: the mean speed over
  ``sqrt(g * depth)`` (theory 0, acceptance < 0.01) and the fraction of each layer's particles
  still in its layer (theory 1, acceptance >= 0.95).
* ``water and ink`` -- ink laid over water (same density, miscible) in a tank stirred by a
  sideways push: the fraction of ink particles that end in the lower half (0 if nothing mixes;
  measured ~0.2-0.4: they mix).
"""

from __future__ import annotations

import math

import numpy as np

from ..world import World
from . import Row

__all__ = ["rows", "tank", "layer_fraction", "two_layer_rest", "ink_mixing"]

WIDTH = 400.0
HEIGHT = 300.0


def tank(lower: str, upper: str, depth_lower: float = 100.0, depth_upper: float = 100.0,
         seed: int = 0) -> World:
    """A 400 x 300 tank (game preset) with ``lower`` laid under ``upper``."""
    w = World(WIDTH, HEIGHT)
    if seed:
        w.fluid.rng = np.random.default_rng(seed)
    w.add_fluid_rect(0, 0, WIDTH, depth_lower, material=lower)
    w.add_fluid_rect(0, depth_lower, WIDTH, depth_lower + depth_upper, material=upper)
    return w


def _heights(w: World, name: str) -> np.ndarray:
    mat = w.material_id(name)
    return w.fluid.positions[w.fluid.materials == mat, 1]


def layer_fraction(lower: str, upper: str, seconds: float = 15.0, seed: int = 0) -> float:
    """Lay ``lower`` under ``upper`` and run ``seconds``; return the fraction of the *lighter*
    material that ends above the heavier one's median height (oil under water: oil above water;
    honey over water: honey below water counts as 'the heavier is below', so the fraction of
    honey under the water's median)."""
    w = tank(lower, upper, seed=seed)
    for _ in range(int(round(seconds * 60))):
        w.step()
    rho = {m.name: m.density for m in w.fluid.material_table}
    if rho[lower] < rho[upper]:  # the lighter one starts below: has it risen above?
        return float((_heights(w, lower) > np.median(_heights(w, upper))).mean())
    # the heavier one starts above: has it sunk below?
    return float((_heights(w, upper) < np.median(_heights(w, lower))).mean())


def two_layer_rest(seconds: float = 10.0, seed: int = 0) -> tuple[float, float, float]:
    """Oil over water at rest for ``seconds``: ``(mean speed / sqrt(g depth), fraction of water
    still below the interface, fraction of oil still above it)`` (the interface is the height
    that splits the particles in the two counts laid)."""
    w = tank("water", "oil", seed=seed)
    n_water = int((w.fluid.materials == w.material_id("water")).sum())
    for _ in range(int(round(seconds * 60))):
        w.step()
    y = w.fluid.positions[:, 1]
    # the interface: the n_water-th lowest particle
    split = np.sort(y)[n_water - 1] if n_water else 0.0
    depth = float(np.percentile(y, 99.5))
    g = math.hypot(*w.fluid.params.gravity)
    speed = float(np.linalg.norm(w.fluid.velocities, axis=1).mean())
    water_in = float((_heights(w, "water") <= split).mean())
    oil_in = float((_heights(w, "oil") > split).mean())
    return speed / math.sqrt(g * depth), water_in, oil_in


def ink_mixing(seconds: float = 10.0, seed: int = 0) -> float:
    """Ink over water (same density, miscible), stirred: a sideways shear for the first second
    (ink pushed right, water left). Returns the fraction of ink in the lower half of the fluid
    after ``seconds`` (0: no mixing)."""
    w = tank("water", "ink", depth_lower=80.0, depth_upper=80.0, seed=seed)
    f = w.fluid
    acc = f.material_accelerations
    acc[w.material_id("ink")] = (300.0, 0.0)
    acc[w.material_id("water")] = (-300.0, 0.0)
    for k in range(int(round(seconds * 60))):
        if k == 60:
            acc[:] = 0.0
        w.step()
    y = f.positions[:, 1]
    mid = np.median(y)
    return float((_heights(w, "ink") < mid).mean())


def rows(quick: bool) -> list[Row]:
    """The measurements above (``quick``: shorter two-layer run and mixing)."""
    out: list[Row] = []
    f = layer_fraction("oil", "water", 15.0)
    out.append(Row("multiphase", "oil under water, 15 s: oil above water median", f, ">= 0.9",
                   f >= 0.9))
    f = layer_fraction("water", "honey", 15.0)
    out.append(Row("multiphase", "honey over water, 15 s: honey below water median", f,
                   ">= 0.9", f >= 0.9))
    sp, wi, oi = two_layer_rest(5.0 if quick else 10.0)
    out.append(Row("multiphase", "oil over water at rest: mean speed / sqrt(g depth)", sp,
                   "< 0.01", sp < 0.01))
    out.append(Row("multiphase", "oil over water at rest: water still in its layer", wi,
                   ">= 0.95", wi >= 0.95))
    out.append(Row("multiphase", "oil over water at rest: oil still in its layer", oi,
                   ">= 0.95", oi >= 0.95))
    m = ink_mixing(5.0 if quick else 10.0)
    out.append(Row("multiphase", "water/ink stirred: ink fraction in the lower half", m,
                   "> 0.1 (they mix)", m > 0.1))
    return out
