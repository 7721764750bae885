"""A fake fluid for the render tests.

``FakeFluid`` has exactly the attributes the renderer reads from ``fluidworld.fluid.FluidSystem``,
so the renderer is built and tested against the contract rather than the solver. (A uniquely
named module rather than ``conftest``, so ``import`` can never pick another folder's conftest.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np
import numpy.typing as npt

BACKGROUND = (0, 0, 0, 255)

WATER = (40, 110, 220, 255)
OIL = (220, 170, 30, 255)
HONEY = (200, 60, 40, 255)


@dataclass
class FakeFluid:
    """A fluid made of plain arrays, with the FluidSystem attributes the renderer uses."""

    positions_: npt.NDArray[np.float64]
    velocities_: npt.NDArray[np.float64] | None = None
    materials_: npt.NDArray[np.uint8] | None = None
    density_: npt.NDArray[np.float64] | None = None
    gradient_: npt.NDArray[np.float64] | None = None
    width: float = 256.0
    height: float = 256.0
    a0: float = 8.0
    gravity: tuple[float, float] = (0.0, -500.0)
    colors: npt.NDArray[np.uint8] = field(
        default_factory=lambda: np.array([WATER, OIL, HONEY], dtype=np.uint8)
    )
    solid_positions: npt.NDArray[np.float64] = field(
        default_factory=lambda: np.zeros((0, 2), dtype=np.float64)
    )
    solid_marked: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=bool))
    cell_pressure_: npt.NDArray[np.float64] | None = None

    def __post_init__(self) -> None:
        n = len(self.positions_)
        self.positions_ = np.ascontiguousarray(self.positions_, dtype=np.float64).reshape(n, 2)
        if self.velocities_ is None:
            self.velocities_ = np.zeros((n, 2))
        if self.materials_ is None:
            self.materials_ = np.zeros(n, dtype=np.uint8)
        if self.density_ is None:
            self.density_ = np.ones(n)
        if self.gradient_ is None:
            self.gradient_ = np.zeros((n, 2))
        self.params = SimpleNamespace(
            width=self.width, height=self.height, a0=self.a0, gravity=self.gravity
        )

    # --- the FluidSystem interface ---
    @property
    def count(self) -> int:
        return len(self.positions_)

    @property
    def positions(self) -> npt.NDArray[np.float64]:
        return self.positions_

    @property
    def velocities(self) -> npt.NDArray[np.float64]:
        assert self.velocities_ is not None
        return self.velocities_

    @property
    def materials(self) -> npt.NDArray[np.uint8]:
        assert self.materials_ is not None
        return self.materials_

    def particle_density(self) -> npt.NDArray[np.float64]:
        assert self.density_ is not None
        return self.density_

    def particle_pressure_gradient(self) -> npt.NDArray[np.float64]:
        assert self.gradient_ is not None
        return self.gradient_

    @property
    def grid_shape(self) -> tuple[int, int]:
        return (int(np.ceil(self.height / self.a0)), int(np.ceil(self.width / self.a0)))

    @property
    def cell_density(self) -> npt.NDArray[np.float64]:
        """Particles per cell over the mean occupancy of the occupied cells (~1 in the bulk)."""
        ny, nx = self.grid_shape
        ij = np.floor(self.positions_ / self.a0).astype(np.int64)
        ok = (ij[:, 0] >= 0) & (ij[:, 0] < nx) & (ij[:, 1] >= 0) & (ij[:, 1] < ny)
        counts = np.zeros((ny, nx))
        np.add.at(counts, (ij[ok, 1], ij[ok, 0]), 1.0)
        gamma = self.a0**2 / (np.sqrt(3.0) / 2.0 * (self.a0 / 2.0) ** 2)
        return counts / gamma

    @property
    def cell_pressure(self) -> npt.NDArray[np.float64]:
        if self.cell_pressure_ is not None:
            return self.cell_pressure_
        return np.maximum(self.cell_density - 1.0, 0.0) * 10.0

    def material_colors(self) -> npt.NDArray[np.uint8]:
        return self.colors


def hex_lattice(
    x0: float, y0: float, x1: float, y1: float, spacing: float
) -> npt.NDArray[np.float64]:
    """Points of a hexagonal lattice (rows ``spacing*sqrt(3)/2`` apart) filling a rectangle."""
    dy = spacing * np.sqrt(3.0) / 2.0
    rows = np.arange(y0 + 0.5 * dy, y1, dy)
    pts = []
    for k, y in enumerate(rows):
        xs = np.arange(x0 + (0.25 if k % 2 == 0 else 0.75) * spacing, x1, spacing)
        pts.append(np.column_stack([xs, np.full_like(xs, y)]))
    return np.concatenate(pts) if pts else np.zeros((0, 2))


def hex_pool(
    width: float = 256.0, depth: float = 96.0, a0: float = 8.0, *, x0: float = 0.0
) -> FakeFluid:
    """A resting pool: a lattice at spacing a0/2 from y=0 to ``depth``, hydrostatic gradient."""
    pos = hex_lattice(x0, 0.0, width, depth, a0 / 2.0)
    n = len(pos)
    grad = np.zeros((n, 2))
    grad[:, 1] = -1.0  # pressure grows downwards
    return FakeFluid(pos, gradient_=grad, a0=a0)
