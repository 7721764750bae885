"""The solvers by name: ``"srd"`` (default), ``"ddr"`` (double density relaxation) and
``"constraint"`` (Sprinkle's velocity-constraint fluid)."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from .solver import Solver
from .srd_solver import SRDSolver

__all__ = ["SOLVER_NAMES", "make_solver"]

# name -> (module, class): imported on first use
_REGISTRY: dict[str, tuple[str, str]] = {
    "srd": ("fluidworld.fluid.srd_solver", "SRDSolver"),
    "ddr": ("fluidworld.fluid.ddr_solver", "DDRSolver"),
    "constraint": ("fluidworld.fluid.constraint_solver", "ConstraintSolver"),
}

#: The solver names :func:`make_solver` accepts, in the order the play window cycles them.
SOLVER_NAMES: tuple[str, ...] = tuple(_REGISTRY)


def make_solver(spec: str | Solver) -> Solver:
    """A solver from its name, or ``spec`` itself if it already is one.

    Raises:
        ValueError: an unknown name. TypeError: neither a name nor a Solver.
    """
    if isinstance(spec, str):
        if spec not in _REGISTRY:
            raise ValueError(f"solver must be one of {list(SOLVER_NAMES)}, got {spec!r}")
        module, cls = _REGISTRY[spec]
        factory: Callable[[], Solver] = getattr(importlib.import_module(module), cls)
        return factory()
    if isinstance(spec, type):
        raise TypeError(f"solver must be a name ({', '.join(SOLVER_NAMES)}) or a Solver, got "
                        f"the class {spec.__name__} (call it: {spec.__name__}())")
    if isinstance(spec, Solver):
        return spec
    raise TypeError(f"solver must be a name ({', '.join(SOLVER_NAMES)}) or a Solver, "
                    f"got {type(spec).__name__}")


assert SRDSolver.name == "srd"
