"""Viscosity: each material's measured kinematic viscosity, and how far a column spreads.

Two scenes at the game preset (``World(w, h)``: dt 1/60, 2 substeps, gravity 900, a0 10):

* **Decaying vortex.** A tank ``W`` wide and ``D`` deep settles, then every particle gets the
  velocity of the box's slowest vortex, stream function ``sin(pi x / W) sin(pi y / D)``:
  ``u = ky sin(kx x) cos(ky y)``, ``v = -kx cos(kx x) sin(ky y)`` (``kx = pi / W``,
  ``ky = pi / D``), 60 px/s at its fastest. It flows along the walls and the free surface
  without pushing into them (no seiche), its shear stress vanishes on all four sides (free
  slip) and its advection term is a pure gradient: it is an exact Navier-Stokes solution
  decaying as ``exp(-nu (kx^2 + ky^2) t)``. ``nu`` is minus the slope of the log of its
  amplitude (the velocities projected on the mode) over ``kx^2 + ky^2``, fitted over up to 1 s
  while it is above a quarter of its start.
  Its walls are free slip (``FluidParams(viscous_walls=False)``, the default, said outright):
  with the walls' no-slip stress (:mod:`fluidworld.fluid.wall_shear`) the mode grows boundary
  layers and is no longer the exact solution.
* **Channel.** A column of the material 1,400 high in a vertical channel between two static
  segments (60 units between their surfaces) falls under gravity into a drain below; with the
  walls' no-slip stress (``viscous_walls=True``, which it sets) it runs down as a plane
  Poiseuille flow, ``u(x) = g / (2 nu) ((w/2)^2 - x^2)``. ``nu`` is ``g / 2`` over the curvature
  of the parabola fitted to the particles' downward speeds across the inner 70 % of the channel,
  pooled over seconds 1-5 in the column's middle (DESIGN, "Materials that act": a gravity-driven
  channel). A material without ``viscosity``, or any material with free-slip walls, slides along
  the walls and falls as a plug: no parabola.
* **Column collapse.** A column ``100 x 150`` at the left wall of a ``1600 x 300`` box falls and
  spreads for 2 s; the front is the 99th percentile of the particles' x. (In a box 800 wide,
  water's front reached the far wall, 795, and the ratio measured the box.)

``Material.viscosity`` adds to SRD's own viscosity (which depends on ``srd_alpha``, ``a0``, ``h``),
so each material is measured beside an inviscid twin (same material, ``viscosity = 0``): the
difference is what the knob added.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from ..fluid import Material
from ..fluid.params import default_materials
from ..world import World
from . import Row

__all__ = ["SWEEP", "vortex_viscosity", "channel_viscosity", "column_front", "rows"]


def _material(name: str, viscosity: float | None) -> Material:
    m = next(m for m in default_materials() if m.name == name)
    return m if viscosity is None else replace(m, viscosity=viscosity)


def vortex_viscosity(material: str, viscosity: float | None = None, seed: int = 0,
                     depth: float = 200.0, width: float = 400.0, speed: float = 60.0,
                     seconds: float = 1.0) -> float:
    """Measured kinematic viscosity (world units^2/s) of a default material from the decay of
    the box's slowest vortex; ``viscosity`` overrides the material's knob (``None``: its
    default)."""
    from ..fluid import FluidParams

    mat = _material(material, viscosity)
    # free-slip walls (the default): the mode is an exact solution only with them
    prm = FluidParams.game(width, depth + 40.0, seed=seed, viscous_walls=False)
    w = World(width, depth + 40.0, params=prm, materials=(mat,))
    w.add_fluid_rect(0.0, 0.0, width, depth, material=mat.name)
    for _ in range(30):  # settle
        w.step()
    f = w.fluid
    kx = math.pi / width
    ky = math.pi / float(np.percentile(f.positions[:, 1], 99.5))  # the settled depth

    def mode() -> NDArray[np.float64]:
        x, y = f.positions[:, 0], f.positions[:, 1]
        return np.column_stack([ky * np.sin(kx * x) * np.cos(ky * y),
                                -kx * np.cos(kx * x) * np.sin(ky * y)])

    def amp() -> float:
        m = mode()
        return float((f.velocities * m).sum() / (m * m).sum())

    m0 = mode()
    f.velocities[:] += speed * m0 / np.abs(m0).max()
    amps = [amp()]
    for _ in range(int(round(seconds / f.params.dt))):
        w.step()
        a = amp()
        if a < 0.25 * amps[0]:
            break
        amps.append(a)
    t = np.arange(len(amps)) * f.params.dt
    slope = np.polyfit(t, np.log(np.array(amps)), 1)[0]
    return float(-slope / (kx * kx + ky * ky))


def channel_viscosity(material: str, seed: int = 0, solver: str = "srd",
                      width: float = 60.0, height: float = 1400.0,
                      viscous_walls: bool = True) -> tuple[float, float]:
    """Measured kinematic viscosity (world units^2/s) of a default material from the parabola
    of its flow down a vertical channel ``width`` wide (module docstring), and its downward
    speed on the channel's centre line (the parabola's top). A plug (no curvature) reads
    ``inf``. ``viscous_walls``: :class:`~fluidworld.fluid.FluidParams`' knob of that name."""
    from ..fluid import FluidParams

    rad = 2.0
    xl, xr = 20.0, 20.0 + width + 2.0 * rad  # the segments' centre lines
    top = 200.0 + height
    size = (xr + 20.0, top + 100.0)
    prm = FluidParams.game(*size, seed=seed, viscous_walls=viscous_walls)
    w = World(*size, params=prm, solver=solver)
    for wall_x in (xl, xr):
        w.add_static_segment((wall_x, 0.0), (wall_x, size[1]), radius=rad)
    w.add_fluid_rect(xl + rad, 200.0, xr - rad, top, material=material)
    w.add_drain((0.0, 0.0, size[0], 200.0))
    xc = 0.5 * (xl + xr)
    xs: list[NDArray[np.float64]] = []
    us: list[NDArray[np.float64]] = []
    dt = w.fluid.params.dt
    for i in range(int(round(5.0 / dt))):
        w.step()
        if (i + 1) * dt < 1.0 or i % 6:
            continue
        p, v = w.fluid.positions, w.fluid.velocities
        high = float(np.percentile(p[:, 1], 99)) if len(p) else 0.0
        band = (p[:, 1] > 400.0) & (p[:, 1] < 400.0 + 0.5 * (high - 400.0))
        inner = band & (np.abs(p[:, 0] - xc) < 0.35 * width)
        xs.append(p[inner, 0] - xc)
        us.append(-v[inner, 1])
    x, u = np.concatenate(xs), np.concatenate(us)
    a, b = np.linalg.lstsq(np.column_stack([np.ones_like(x), -x * x]), u, rcond=None)[0]
    g = -w.fluid.params.gravity[1]
    return (float(g / (2.0 * b)) if b > 0.0 else math.inf), float(a)


def column_front(material: str, seconds: float = 2.0, seed: int = 0) -> float:
    """The front (99th percentile of x) of a 100 x 150 column of a default material after it has
    collapsed for ``seconds`` in a 1600 x 300 box (no front reaches its far wall in 2 s)."""
    from ..fluid import FluidParams

    w = World(1600.0, 300.0, params=FluidParams.game(1600.0, 300.0, seed=seed))
    w.add_fluid_rect(0.0, 0.0, 100.0, 150.0, material=material)
    for _ in range(int(round(seconds / w.fluid.params.dt))):
        w.step()
    return float(np.percentile(w.fluid.positions[:, 0], 99))


#: Knob values of the linearity sweep (water's SRD, the knob varied), beside the defaults.
SWEEP = (1_000.0, 5_000.0, 10_000.0, 40_000.0)


def _added_bounds(knob: float) -> tuple[float, float]:
    """What the knob should add to SRD's own nu: near-linear, 0.9x to 1.4x (the stage's
    documented ~1.1-1.25x), +-150 px^2/s of noise."""
    return 0.9 * knob - 150.0, 1.4 * knob + 150.0


def rows(quick: bool = False) -> list[Row]:
    """Each default material's measured nu beside SRD's own plus its knob; the knob's linearity;
    honey's nu from a channel against the vortex's; honey vs water (nu and column front)."""
    out: list[Row] = []
    seeds = (0,) if quick else (0, 1, 2)

    def nu_of(name: str, knob: float | None) -> float:
        return float(np.mean([vortex_viscosity(name, knob, seed=s) for s in seeds]))

    nus: dict[str, float] = {}
    for m in default_materials():
        nu = nus[m.name] = nu_of(m.name, None)
        own = nu_of(m.name, 0.0)  # the inviscid twin: SRD's own viscosity
        lo, hi = _added_bounds(m.viscosity)
        out.append(Row("viscosity", f"{m.name}: nu px^2/s (SRD's own {own:.0f} + knob "
                       f"{m.viscosity:g})", nu, f"{own + lo:.0f} .. {own + hi:.0f}",
                       own + lo <= nu <= own + hi))
    if not quick:
        own = nu_of("water", 0.0)
        for knob in SWEEP:
            added = nu_of("water", knob) - own
            lo, hi = _added_bounds(knob)
            out.append(Row("viscosity", f"water, viscosity={knob:g}: nu added", added,
                           f"{lo:.0f} .. {hi:.0f}", lo <= added <= hi))
    # the walls' hold (no slip) and the bulk's nu: the channel's parabola against the vortex's
    chan = float(np.mean([channel_viscosity("honey", seed=s)[0] for s in seeds]))
    r = chan / nus["honey"]
    out.append(Row("viscosity", f"honey: nu from a channel's parabola ({chan:.0f}) / from the "
                   "vortex", r, "0.7 .. 1.4", 0.7 <= r <= 1.4))
    ratio = nus["honey"] / nus["water"]
    out.append(Row("viscosity", "honey nu / water nu", ratio, ">= 10", ratio >= 10.0))
    fw = column_front("water")
    fh = column_front("honey")
    out.append(Row("viscosity", f"column front after 2 s: honey {fh:.0f} / water {fw:.0f}",
                   fh / fw, "<= 0.7", fh / fw <= 0.7))
    return out
