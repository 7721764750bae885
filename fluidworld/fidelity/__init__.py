"""Measurements of the fluid against theory, shared by the tests and ``benchmarks/fidelity.py``.

Each module here builds its scenes from the public API (:class:`~fluidworld.World` and its
helpers), runs them and returns plain numbers; the tests assert on those numbers and the
benchmark prints them in one table next to what theory expects. A scene is written once.

Modules (each exposes ``rows(quick: bool) -> list[Row]``):

* :mod:`.multiphase` -- layering by density (oil over water, honey under it), a two-layer tank at
  rest, immiscible interfaces.
* :mod:`.rayleigh_taylor` -- how fast honey laid over water overturns, against the linear
  theory of two viscous layers.
* :mod:`.viscosity` -- each material's measured kinematic viscosity, honey/water spreading.
* :mod:`.buoyancy` -- Archimedes in each fluid, displacement, calm water.
* :mod:`.stability` -- the angle a square log floats at; how still a pool at rest stays.
* :mod:`.tension` -- surface and interfacial tension: how round a blob pulls itself.
* :mod:`.walls` -- crossings of thin floors, closed shapes and joints under load; volume drift.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

__all__ = ["Row", "MODULES", "collect"]

#: The measurement modules, in the order the table prints them.
MODULES = (
    "multiphase", "rayleigh_taylor", "viscosity", "buoyancy", "stability", "tension", "walls",
)


@dataclass(frozen=True)
class Row:
    """One measured figure beside what theory (or the acceptance bound) expects.

    Args:
        group: Section of the table ("layering", "viscosity", ...).
        name: What was measured, e.g. ``"box 0.6 in oil: submerged fraction"``.
        measured: The measured value.
        expected: What theory or the acceptance bound says, as text (``"0.75 +- 0.05"``).
        ok: Whether the measurement meets it.
    """

    group: str
    name: str
    measured: float
    expected: str
    ok: bool


def collect(quick: bool = False, only: tuple[str, ...] = ()) -> list[Row]:
    """Rows of every measurement module (those in ``only`` if given) that is present."""
    rows: list[Row] = []
    for name in MODULES:
        if only and name not in only:
            continue
        try:
            mod = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            continue
        rows.extend(mod.rows(quick))
    return rows
