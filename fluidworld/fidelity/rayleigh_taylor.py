"""Rayleigh-Taylor: how fast honey laid over water overturns, against linear theory.

A heavy viscous layer over a lighter one is unstable: a bump of the interface grows as
``exp(sigma t)`` until the layers swap. For the multiphase tank (:func:`.multiphase.tank`: a
400-wide tank, water 100 deep on a free-slip floor, honey 100 deep over it with a free surface)
:func:`growth_theory` solves the linearised Navier-Stokes equations of the two layers for the
rate ``sigma`` of an interface mode ``cos(k x)``: in each layer the stream function is ``(a cosh
ky + b sinh ky + c cosh my + d sinh my) e^{ikx + sigma t}`` with ``m^2 = k^2 + sigma / nu``;
the floor takes no flow and no shear, the interface carries velocity and shear stress across
and its normal stress jumps by the weight of the displaced fluid, and the free surface takes no
stress (its own bump weighs on it). ``sigma`` is the largest root of the 8 x 8 determinant.
Viscosity slows the overturn: for this tank ~0.27/s at honey's nu 24,000 units^2/s (the honey of
~22x water's viscosity before 2026-12-01), ~0.5/s at 6,600 (the default honey).

:func:`growth_measured` lays the tank with its interface tilted along the tank's longest mode
(``k = pi / 400``, 5 units: about a particle spacing) and fits the growth of that mode's
amplitude (the lowest honey in 20-unit columns, projected on ``cos(k x)``) over seconds 1-4,
while it is linear (it grows to ~40 units by then and overturns by ~7 s).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ..fluid import Material
from ..world import World
from . import Row
from .multiphase import WIDTH, tank

__all__ = ["growth_theory", "growth_measured", "rows"]


def _basis(y: float, k: float, m: float, y0: float, y1: float) -> NDArray[np.float64]:
    """Rows ``phi`` and its first three derivatives at ``y``, of a layer ``y0..y1``'s four
    solutions ``cosh k(y - y0), sinh k(y - y0), e^{m (y - y1)}, e^{-m (y - y0)}`` (each at most
    1 in the layer: ``cosh my`` overflowed the determinant into false roots where ``m`` is
    large)."""
    ck, sk = math.cosh(k * (y - y0)), math.sinh(k * (y - y0))
    up, down = math.exp(m * (y - y1)), math.exp(-m * (y - y0))
    return np.array([[ck, sk, up, down],
                     [k * sk, k * ck, m * up, -m * down],
                     [k * k * ck, k * k * sk, m * m * up, m * m * down],
                     [k ** 3 * sk, k ** 3 * ck, m ** 3 * up, -(m ** 3) * down]])


def _determinant(sigma: float, k: float, layers: tuple[float, ...], g: float) -> float:
    """The boundary conditions' determinant at growth rate ``sigma`` (rows scaled to 1).
    ``layers`` = ``(depth, density, nu)`` of the lower layer, then of the upper one."""
    h1, r1, n1, h2, r2, n2 = layers
    m1, m2 = math.sqrt(k * k + sigma / n1), math.sqrt(k * k + sigma / n2)
    mu1, mu2 = r1 * n1, r2 * n2

    def normal(b: NDArray[np.float64], rho: float, mu: float) -> NDArray[np.float64]:
        # the normal stress (times ik) with the interface's weight: rho g k^2 phi / sigma
        weight = rho * g * k * k * b[0] / sigma
        return weight - mu * (b[3] - 3.0 * k * k * b[1]) + rho * sigma * b[1]

    def shear(b: NDArray[np.float64]) -> NDArray[np.float64]:
        return b[2] + k * k * b[0]

    a = np.zeros((8, 8))
    top_y = h1 + h2
    floor, lo = _basis(0.0, k, m1, 0.0, h1), _basis(h1, k, m1, 0.0, h1)
    hi, top = _basis(h1, k, m2, h1, top_y), _basis(top_y, k, m2, h1, top_y)
    a[0, :4], a[1, :4] = floor[0], floor[2]  # no flow through the floor, no shear on it
    a[2, :4], a[2, 4:] = lo[0], -hi[0]  # the interface: normal and tangential velocity,
    a[3, :4], a[3, 4:] = lo[1], -hi[1]
    a[4, :4], a[4, 4:] = mu1 * shear(lo), -mu2 * shear(hi)  # shear stress,
    a[5, :4], a[5, 4:] = normal(lo, r1, mu1), -normal(hi, r2, mu2)  # normal stress
    a[6, 4:], a[7, 4:] = shear(top), normal(top, r2, mu2)  # a free surface
    a /= np.abs(a).max(axis=1, keepdims=True)
    return float(np.linalg.det(a))


def growth_theory(k: float, lower: tuple[float, float, float], upper: tuple[float, float, float],
                  g: float = 900.0) -> float:
    """The growth rate (1/s) of the interface mode ``cos(k x)`` of two viscous layers on a
    free-slip floor under a free surface, each ``(depth, density, kinematic viscosity)``; 0 if
    the mode does not grow (the lighter layer on top). Bisection on the largest sign change of
    the determinant over ``sigma`` in ``[1e-3, 50]``."""
    layers = (*lower, *upper)
    grid = np.logspace(-3.0, math.log10(50.0), 400)
    vals = [_determinant(s, k, layers, g) for s in grid]
    for i in range(len(grid) - 2, -1, -1):
        if np.sign(vals[i]) != np.sign(vals[i + 1]):
            lo, hi, f_lo = grid[i], grid[i + 1], vals[i]
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                f_mid = _determinant(mid, k, layers, g)
                if np.sign(f_mid) == np.sign(f_lo):
                    lo, f_lo = mid, f_mid
                else:
                    hi = mid
            return float(0.5 * (lo + hi))
    return 0.0


def _mode_amplitude(w: World, name: str, k: float) -> float:
    """Amplitude of the ``cos(k x)`` mode of the lowest ``name`` particles in 20-unit columns."""
    f = w.fluid
    sel = f.materials == w.material_id(name)
    x, y = f.positions[sel, 0], f.positions[sel, 1]
    cols = np.clip((x // 20.0).astype(np.int64), 0, int(WIDTH // 20.0) - 1)
    low = np.array([np.percentile(y[cols == c], 2) for c in range(int(WIDTH // 20.0))])
    xc = (np.arange(len(low)) + 0.5) * 20.0
    return float(2.0 * np.mean((low - low.mean()) * np.cos(k * xc)))


def growth_measured(seed: int = 0, tilt: float = 5.0, window: tuple[float, float] = (1.0, 4.0),
                    materials: tuple[Material, ...] | None = None) -> float:
    """The measured growth rate (1/s) of the tank's longest mode of honey laid over water with
    its interface tilted by ``tilt``: the slope of the log of the mode's amplitude over
    ``window`` (seconds)."""
    w = tank("water", "honey", seed=seed, tilt=tilt, materials=materials)
    k = math.pi / WIDTH
    ts: list[float] = []
    amps: list[float] = []
    steps = int(round(window[1] * 60))
    for i in range(steps + 1):
        if i >= int(round(window[0] * 60)) and i % 15 == 0:
            ts.append(i / 60.0)
            amps.append(_mode_amplitude(w, "honey", k))
        w.step()
    return float(np.polyfit(ts, np.log(np.abs(amps)), 1)[0])


def rows(quick: bool = False) -> list[Row]:
    """The default honey's overturn rate against the theory for its measured viscosities."""
    from .viscosity import vortex_viscosity

    nu_w = vortex_viscosity("water")
    nu_h = vortex_viscosity("honey")
    theory = growth_theory(math.pi / WIDTH, (100.0, 1.0, nu_w), (100.0, 1.4, nu_h))
    seeds = (0,) if quick else (0, 1)
    measured = float(np.mean([growth_measured(seed=s) for s in seeds]))
    return [Row("multiphase", f"honey over water tilted 5: growth of the longest mode "
                f"{measured:.3f}/s / viscous Rayleigh-Taylor theory {theory:.3f}/s "
                f"(nu {nu_w:.0f} / {nu_h:.0f})", measured / theory, "1 +- 0.25",
                abs(measured / theory - 1.0) <= 0.25)]
