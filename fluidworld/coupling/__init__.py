"""Two-way coupling between the fluid and pymunk bodies (the only code that touches pymunk).

:class:`Coupler` samples every coupled shape (solid particles on the outline at ``r_L / 2``,
area samples inside), re-poses them each substep in numba kernels, projects fluid out of shapes
after advection and gives each body, once per substep, the summed contact, containment,
buoyancy and drag impulses (equal and opposite to what the fluid got).
"""

from .coupler import Coupler, CouplingParams

__all__ = ["Coupler", "CouplingParams"]
