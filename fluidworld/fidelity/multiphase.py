"""Multiphase: layering by density and immiscible interfaces, at the game preset.

Scenes (each built from the public :class:`~fluidworld.World` API, a 400 x 300 tank):

* ``oil under water`` -- a layer of oil laid on the floor under water. Oil (0.8) is lighter:
  after 15 s the fraction of oil particles above the water's median height (theory: all of it,
  the oil floats on top; acceptance >= 0.9).
* ``honey over water`` -- honey (1.4) laid on top of water: fraction below the water's median
  height (theory 1, acceptance >= 0.9) after 15 s for an inviscid honey (``viscosity = 0``: the
  density layering alone) and for the default, viscous honey (~11x water's kinematic
  viscosity, :mod:`.viscosity`), and after 25 s for the viscous honey laid with its interface
  tilted by 5 units (``tilt``: about a particle spacing, the tank's longest mode). A viscous
  Rayleigh-Taylor overturn grows from the interface's first bumps at a rate that falls as
  honey's viscosity rises (:mod:`.rayleigh_taylor`, this tank's fastest mode: ~0.28/s at nu
  24,000, ~0.69/s at 6,640; the bumps of a flat lattice grow from ~0.1-0.5 units). Laid flat,
  the default honey is below by 15 s on 11 of 13 seeds (0.86-1.0); the honey of ~22x water's
  viscosity before 2026-12-01 took 40-60 s.
* ``honey poured`` -- honey poured from a nozzle onto water, as the play window pours it: the
  fraction below the water's median after 10 s.
* ``two-layer tank`` -- oil laid over water at rest for 10 s: the mean speed over
  ``sqrt(g * depth)`` (theory 0, acceptance < 0.01) and the fraction of each layer's particles
  still in its layer (theory 1, acceptance >= 0.95).
* ``band pushed through water`` -- paper Fig. 7 (gravity off, a band pushed down through water
  rolls up two vortices) with ink, and with a material as dense as water but immiscible: the
  share of water in the band particles' cells (:func:`contact`). Ink mixes (the share grows);
  the immiscible band keeps a sharp interface (the share stays at a sharp interface's).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..fluid import WATER, FluidParams, Material, default_materials
from ..world import World
from . import Row

__all__ = ["rows", "tank", "layer_fraction", "poured_fraction", "inviscid_honey",
           "two_layer_rest", "band_mixing", "contact", "UNMIXING"]

WIDTH = 400.0
HEIGHT = 300.0


def tank(lower: str, upper: str, depth_lower: float = 100.0, depth_upper: float = 100.0,
         seed: int = 0, materials: tuple[Material, ...] | None = None,
         tilt: float = 0.0) -> World:
    """A 400 x 300 tank (game preset) with ``lower`` laid under ``upper`` (``materials``: the
    table, default the built-in one). With ``tilt``, the interface is ``depth_lower + tilt *
    cos(pi x / 400)`` (one lattice split along it): the tank's longest mode, at amplitude
    ``tilt``, as a pour leaves it."""
    w = World(WIDTH, HEIGHT, params=FluidParams.game(WIDTH, HEIGHT, seed=seed),
              materials=materials)
    if tilt == 0.0:
        w.add_fluid_rect(0, 0, WIDTH, depth_lower, material=lower)
        w.add_fluid_rect(0, depth_lower, WIDTH, depth_lower + depth_upper, material=upper)
        return w
    pts = w.fluid.hex_lattice(0.0, 0.0, WIDTH, depth_lower + depth_upper)
    below = pts[:, 1] < depth_lower + tilt * np.cos(np.pi * pts[:, 0] / WIDTH)
    w.fluid.add_particles(pts[below], material=w.material_id(lower))
    w.fluid.add_particles(pts[~below], material=w.material_id(upper))
    return w


def _heights(w: World, name: str) -> np.ndarray:
    mat = w.material_id(name)
    return w.fluid.positions[w.fluid.materials == mat, 1]


def layer_fraction(lower: str, upper: str, seconds: float = 15.0, seed: int = 0,
                   materials: tuple[Material, ...] | None = None,
                   counted: str | None = None, tilt: float = 0.0) -> float:
    """Lay ``lower`` under ``upper`` and run ``seconds``; return the fraction of the ``counted``
    material's particles (default ``lower``) that ended on the side of the other's median
    height where its density sends it: above it if it is the lighter (oil laid under water:
    oil above the water's median), below it if it is the heavier (honey laid over water,
    ``counted="honey"``: honey below the water's median). ``tilt``: see :func:`tank`."""
    counted = lower if counted is None else counted
    if counted not in (lower, upper):
        raise ValueError(f"counted must be {lower!r} or {upper!r}, got {counted!r}")
    other = upper if counted == lower else lower
    w = tank(lower, upper, seed=seed, materials=materials, tilt=tilt)
    for _ in range(int(round(seconds * 60))):
        w.step()
    return _on_its_side(w, counted, other)


def _on_its_side(w: World, counted: str, other: str) -> float:
    """Fraction of ``counted``'s particles on the side of ``other``'s median height where its
    density sends them: above it if ``counted`` is the lighter, else below it."""
    rho = {m.name: m.density for m in w.fluid.material_table}
    mine = _heights(w, counted)
    median = np.median(_heights(w, other))
    if rho[counted] < rho[other]:
        return float((mine > median).mean())
    return float((mine < median).mean())


def poured_fraction(material: str = "honey", seconds: float = 10.0, seed: int = 0,
                    pour: float = 3.0) -> float:
    """Pour ``material`` from a nozzle 150 units above a pool of water 100 deep (400 x 300 tank,
    600 particles/s straight down at 100 units/s for ``pour`` seconds, as the play window's
    right mouse pours) and run ``seconds`` in all; return the fraction of the poured particles
    on the side of the water's median height where their density sends them (below it for a
    heavier fluid, above it for a lighter one)."""
    w = World(WIDTH, HEIGHT, params=FluidParams.game(WIDTH, HEIGHT, seed=seed))
    w.add_fluid_rect(0, 0, WIDTH, 100.0, material="water")
    nozzle = w.add_emitter((0.5 * WIDTH, 250.0), (0.0, -1.0), 100.0, 600.0, material=material,
                           width=30.0)
    for i in range(int(round(seconds * 60))):
        if i == int(round(pour * 60)):
            nozzle.rate = 0.0
        w.step()
    return _on_its_side(w, material, "water")


def inviscid_honey() -> tuple[Material, ...]:
    """The built-in table with honey's viscosity set to 0: density layering without the viscous
    slow-down."""
    return tuple(replace(m, viscosity=0.0) if m.name == "honey" else m
                 for m in default_materials())


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


def contact(w: World, a: str, b: str) -> float:
    """Mean over the particles of ``a`` of the share of ``b`` among the particles of their
    pressure cell: ~0.5 where the two are mixed evenly, only the interface cells' share (a few
    %) where they lie in two layers."""
    f = w.fluid
    j, i = f.cell_of_points(f.positions)
    cell = j * f.nx + i
    ma, mb = w.material_id(a), w.material_id(b)
    mat = f.materials
    na = np.bincount(cell[mat == ma], minlength=f.nx * f.ny)
    nb = np.bincount(cell[mat == mb], minlength=f.nx * f.ny)
    share = nb / np.maximum(na + nb, 1)
    return float(share[cell[mat == ma]].mean())


#: A material as dense as water but immiscible with it, water in every other knob: isolates
#: miscibility from buoyancy (and from viscosity: with SRD's rotation angle of its own, pi/2
#: against water's pi/4, the band flowed otherwise and its contact grew past the ink's).
UNMIXING = replace(WATER, name="unmixing", color=(200, 60, 160, 255), mix_group="unmixing")


def band_mixing(material: str = "ink", seconds: float = 20.0, seed: int = 0) -> float:
    """Paper Fig. 7 at the game preset, gravity off: a 300 x 300 box of water whose middle band
    (``material``: "ink", or "unmixing", as dense as water but immiscible) is pushed down at
    100 units/s^2, rolling up two vortices. Returns :func:`contact` of the band with water after
    ``seconds``: the miscible ink mixes into the water; the immiscible band keeps a sharp
    interface (about the contact of two layers that meet along cell-crossing lines)."""
    mats = (*default_materials(), UNMIXING)
    w = World(300.0, 300.0, params=FluidParams.game(300.0, 300.0, gravity=(0.0, 0.0), seed=seed),
              materials=mats)
    w.add_fluid_rect(0, 0, 100, 300)
    w.add_fluid_rect(100, 0, 200, 300, material=material)
    w.add_fluid_rect(200, 0, 300, 300)
    w.fluid.material_accelerations[w.material_id(material)] = (0.0, -100.0)
    for _ in range(int(round(seconds * 60))):
        w.step()
    return contact(w, material, "water")


def rows(quick: bool) -> list[Row]:
    """The measurements above (``quick``: shorter two-layer run and mixing)."""
    out: list[Row] = []
    f = layer_fraction("oil", "water", 15.0)
    out.append(Row("multiphase", "oil under water, 15 s: oil above water median", f, ">= 0.9",
                   f >= 0.9))
    f = layer_fraction("water", "honey", 15.0, materials=inviscid_honey(), counted="honey")
    out.append(Row("multiphase", "inviscid honey over water, 15 s: honey below water median", f,
                   ">= 0.9", f >= 0.9))
    f = layer_fraction("water", "honey", 15.0, counted="honey")
    out.append(Row("multiphase", "honey over water, 15 s: honey below water median", f,
                   ">= 0.9", f >= 0.9))
    f = layer_fraction("water", "honey", 25.0, counted="honey", tilt=5.0)
    out.append(Row("multiphase", "honey over water tilted 5, 25 s: honey below water median",
                   f, ">= 0.9", f >= 0.9))
    f = layer_fraction("water", "honey", 25.0, tilt=5.0)
    out.append(Row("multiphase", "honey over water tilted 5, 25 s: water above honey median",
                   f, ">= 0.9", f >= 0.9))
    f = poured_fraction("honey", 10.0)
    out.append(Row("multiphase", "honey poured onto water, 10 s: honey below water median", f,
                   ">= 0.9", f >= 0.9))
    sp, wi, oi = two_layer_rest(5.0 if quick else 10.0)
    out.append(Row("multiphase", "oil over water at rest: mean speed / sqrt(g depth)", sp,
                   "< 0.01", sp < 0.01))
    out.append(Row("multiphase", "oil over water at rest: water still in its layer", wi,
                   ">= 0.95", wi >= 0.95))
    out.append(Row("multiphase", "oil over water at rest: oil still in its layer", oi,
                   ">= 0.95", oi >= 0.95))
    if not quick:  # a minute of play: the layers do not diffuse into each other
        _, wi, oi = two_layer_rest(60.0)
        both = min(wi, oi)
        out.append(Row("multiphase", "oil over water at rest 60 s: least layer still in place",
                       both, ">= 0.95", both >= 0.95))
    secs = 10.0 if quick else 20.0
    ink = band_mixing("ink", secs)
    unmixing = band_mixing("unmixing", secs)
    out.append(Row("multiphase", f"band pushed through water {secs:g} s: ink/water contact", ink,
                   "> immiscible's (mixes)", ink > unmixing))
    out.append(Row("multiphase", f"band pushed through water {secs:g} s: immiscible contact",
                   unmixing, "< ink's (sharp)", unmixing < ink))
    return out
