"""What the renderer reads from a fluid: a structural interface, so any object with these
attributes can be drawn (the real ``fluidworld.fluid.FluidSystem``, a recorded snapshot, a fake).
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

__all__ = ["FluidParamsView", "FluidView", "fluid_view", "particle_spacing"]


class FluidParamsView(Protocol):
    """Read-only view of the fluid parameters the renderer needs."""

    @property
    def width(self) -> float: ...

    @property
    def height(self) -> float: ...

    @property
    def a0(self) -> float: ...

    @property
    def gravity(self) -> Any: ...  # (gx, gy)


class FluidView(Protocol):
    """Read-only view of a particle fluid.

    Arrays are in world units with y up. ``cell_density[j, i]`` covers
    ``x in [i*a0, (i+1)*a0)`` and ``y in [j*a0, (j+1)*a0)``.
    """

    @property
    def count(self) -> int: ...

    @property
    def positions(self) -> npt.NDArray[np.float64]: ...

    @property
    def velocities(self) -> npt.NDArray[np.float64]: ...

    @property
    def materials(self) -> npt.NDArray[np.uint8]: ...

    @property
    def params(self) -> FluidParamsView: ...

    @property
    def grid_shape(self) -> tuple[int, int]: ...

    @property
    def cell_density(self) -> npt.NDArray[np.float64]: ...

    @property
    def cell_pressure(self) -> npt.NDArray[np.float64]: ...

    @property
    def solid_positions(self) -> npt.NDArray[np.float64]: ...

    @property
    def solid_marked(self) -> npt.NDArray[np.bool_]: ...

    def particle_density(self) -> npt.NDArray[np.float64]: ...

    def particle_pressure_gradient(self) -> npt.NDArray[np.float64]: ...

    def material_colors(self) -> npt.NDArray[np.uint8]: ...


def particle_spacing(params: Any) -> float:
    """Nominal distance between neighbouring fluid particles at rest density.

    Uses ``params.r_l`` when the parameters carry it, else derives it from ``a0`` and ``gamma``
    (paper Eq. 5: ``r_L = sqrt(2 a0^2 / (gamma sqrt(3)))``, the spacing of a hexagonal lattice
    with ``gamma`` particles per cell), else assumes ``gamma = 4.6`` (``a0 / 2``).

    Args:
        params: The fluid parameters (anything with ``a0``; ``r_l``/``gamma`` optional).

    Returns:
        The spacing in world units.

    >>> from types import SimpleNamespace
    >>> round(particle_spacing(SimpleNamespace(a0=10.0, gamma=5.0)), 3)
    4.806
    >>> particle_spacing(SimpleNamespace(a0=10.0))
    5.0
    """
    r_l = getattr(params, "r_l", None)
    if r_l is not None and float(r_l) > 0.0:
        return float(r_l)
    a0 = float(params.a0)
    gamma = getattr(params, "gamma", None)
    if gamma is not None and float(gamma) > 0.0:
        return float(np.sqrt(2.0 * a0 * a0 / (float(gamma) * np.sqrt(3.0))))
    return 0.5 * a0


#: The :class:`FluidView` attributes that tell a fluid from anything else (what every renderer
#: reads first).
_VIEW_ATTRS = ("count", "positions", "velocities", "materials", "params")


def fluid_view(obj: Any, name: str = "fluid") -> Any:
    """``obj`` as a fluid to draw: an object with the :class:`FluidView` attributes as it is
    (``world.fluid``, a ``FluidSystem``, a recorded snapshot), and a ``World`` (anything whose
    ``fluid`` is one) as its fluid, so ``FluidRenderer(world)`` draws ``world.fluid``.

    Raises:
        TypeError: naming ``name``, for anything else (``None``, a pymunk Space, ...).
    """
    if all(hasattr(obj, a) for a in _VIEW_ATTRS):
        return obj
    inner = getattr(obj, "fluid", None)
    if inner is not None and all(hasattr(inner, a) for a in _VIEW_ATTRS):
        return inner
    raise TypeError(f"{name} must be a fluid (world.fluid, a World, a FluidSystem, or an object "
                    f"with the FluidView attributes {', '.join(_VIEW_ATTRS)}, ...), got "
                    f"{type(obj).__name__}")
