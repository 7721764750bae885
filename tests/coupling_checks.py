"""What the coupling's kernel-against-reference tests share (``test_coupling_reference.py``,
``test_coupling_shapes_reference.py``): the seeds, a static body and the round-off comparison."""

from __future__ import annotations

import numpy as np
import pymunk

SEEDS = (0, 1, 2, 3)
#: The body the tests' static shapes hang on (kept alive: pymunk 7 shapes hold a weakref).
BODY = pymunk.Body(body_type=pymunk.Body.STATIC)


def close(actual: object, desired: object, tol: float = 1e-10) -> None:
    """Equal to round-off (NaN where NaN); tuples of arrays item by item."""
    if isinstance(actual, tuple) and isinstance(desired, tuple):
        for a, d in zip(actual, desired, strict=True):
            close(a, d, tol)
    else:
        np.testing.assert_allclose(actual, desired, rtol=tol, atol=tol)
