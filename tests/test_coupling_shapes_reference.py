"""The coupling's shape queries against their numpy references (``coupling.reference``) and
pymunk's own point and segment queries: a circle, a capsule, a sharp and a rounded thin convex
polygon posed at random (several seeds); bounds, the push out of a shape (also from points on
its boundary), the swept test of a move through a shape and the wall crossing of a particle.
Split out of ``test_coupling_reference.py``."""

from __future__ import annotations

import math

import numpy as np
import pymunk
import pytest
from coupling_checks import BODY, SEEDS, close

from fluidworld.coupling import containment, shapetests
from fluidworld.coupling import reference as ref


def random_shapes(seed: int) -> tuple[list[pymunk.Shape], tuple]:
    """A circle, a capsule, a sharp and a rounded (thin) convex polygon, posed in world
    coordinates, as pymunk shapes and as the coupler's flat arrays."""
    rng = np.random.default_rng(seed)
    body = BODY
    c = rng.uniform(-5, 5, 2)
    a, b = rng.uniform(-10, 10, 2), rng.uniform(-10, 10, 2)
    polys = []
    for aspect in (1.0, 0.15):
        ang = np.sort(rng.uniform(0, 2 * math.pi, 6))
        rot = rng.uniform(0, math.pi)
        ex, ey = 8.0 * np.cos(ang), 8.0 * aspect * np.sin(ang)
        polys.append(np.column_stack([ex * math.cos(rot) - ey * math.sin(rot),
                                      ex * math.sin(rot) + ey * math.cos(rot)]) + c)
    radius = np.array([rng.uniform(2, 6), rng.uniform(0.5, 3), 0.0, rng.uniform(0.3, 1.5)])
    shapes = [pymunk.Circle(body, radius[0], offset=tuple(c)),
              pymunk.Segment(body, tuple(a), tuple(b), radius[1]),
              pymunk.Poly(body, [tuple(v) for v in polys[0]], radius=0.0),
              pymunk.Poly(body, [tuple(v) for v in polys[1]], radius=radius[3])]
    for sh in shapes:
        sh.cache_bb()
    verts = np.concatenate([c[None], a[None], b[None], *polys])
    flat = (np.array([0, 1, 2, 2]), np.array([0, 1, 3, 9, 15]), verts, radius)
    return shapes, flat


@pytest.mark.parametrize("seed", SEEDS)
def test_shape_bounds(seed: int) -> None:
    shapes, (kind, vstart, verts, radius) = random_shapes(seed)
    box = np.zeros((4, 4))
    containment.shape_bounds(kind, vstart, verts, radius, 0.75, box)
    close(box, ref.shape_bounds(kind, vstart, verts, radius, 0.75))
    for q, sh in enumerate(shapes):  # pymunk's own boxes, grown by the margin
        bb = sh.bb
        close(box[q], [bb.left - 0.75, bb.bottom - 0.75, bb.right + 0.75, bb.top + 0.75], 1e-9)


def shape_args(flat: tuple, q: int) -> tuple:
    kind, vstart, verts, radius = flat
    return int(kind[q]), int(vstart[q]), int(vstart[q + 1]), verts, float(radius[q])


@pytest.mark.parametrize("seed", SEEDS)
def test_push_out(seed: int) -> None:
    """Inside exactly where pymunk says; out to pymunk's nearest surface point + eps when the
    particle did not move; otherwise as the reference says (the side it came in by)."""
    shapes, flat = random_shapes(seed)
    rng = np.random.default_rng(100 + seed)
    for q, sh in enumerate(shapes):
        args = (*shape_args(flat, q), 0.05)
        bb = sh.bb
        hits = entered = 0
        for _ in range(150):
            p = rng.uniform((bb.left - 1, bb.bottom - 1), (bb.right + 1, bb.top + 1))
            o = p + rng.normal(0, 6, 2)
            got = shapetests._push_out(p[0], p[1], o[0], o[1], *args)
            want = ref.push_out(p[0], p[1], o[0], o[1], *args)
            assert got[0] == want[0]
            info = sh.point_query(tuple(p))
            if abs(info.distance) > 1e-9:
                assert got[0] == (info.distance < 0)
            if not got[0]:
                continue
            hits += 1
            close(got[1:], want[1:], 1e-9)
            nearest = (*(np.array(info.point) + 0.05 * np.array(info.gradient)), *info.gradient)
            entered += not np.allclose(got[1:], nearest, atol=1e-9)
            still = shapetests._push_out(p[0], p[1], p[0], p[1], *args)
            close(still[1:], nearest, 1e-9)
            close(ref.push_out(p[0], p[1], p[0], p[1], *args)[1:], nearest, 1e-9)
        assert hits > 10 and (entered > 0) == (q > 0)  # a circle has no side to come in by


# p, o, kind, v0, v1, r -> None (not inside) or the point it goes to
BOUNDARY_CASES = [
    ((3.0, 1.0), (3.0, 1.0), 0, 0, 1, 2.0, None),            # on the circle: outside
    ((1.0, 1.0), (5.0, 5.0), 0, 0, 1, 2.0, (1.0, 3.05)),     # at its centre: no direction
    ((2.0, 0.0), (2.0, 1.5), 1, 1, 3, 1.0, (2.0, 1.05)),     # on a capsule's core, from above
    ((2.0, 0.0), (2.0, -0.5), 1, 1, 3, 1.0, (2.0, -1.05)),   # ... from below
    ((2.0, 0.0), (2.0, 0.0), 1, 1, 3, 1.0, (2.0, 1.05)),     # ... never moved
    ((2.0, 1.0), (2.0, 1.0), 1, 1, 3, 1.0, None),            # on its surface: outside
    ((2.0, 0.0), (2.0, -1.0), 2, 3, 7, 0.0, (2.0, -0.05)),   # on a sharp edge: the core is closed
    ((0.0, 3.0), (1.0, 3.0), 2, 3, 7, 0.0, (-0.05, 3.0)),    # ... without a move from outside
    ((2.0, -0.5), (2.0, -0.5), 2, 3, 7, 0.5, None),          # on a rounding's surface: outside
]


@pytest.mark.parametrize("case", BOUNDARY_CASES)
def test_push_out_on_boundaries(case: tuple) -> None:
    verts = np.array([[1.0, 1.0], [0.0, 0.0], [4.0, 0.0], [0.0, 0.0], [4.0, 0.0], [4.0, 4.0],
                      [0.0, 4.0]])
    p, o, kind, v0, v1, r, want = case
    for got in (shapetests._push_out(*p, *o, kind, v0, v1, verts, r, 0.05),
                ref.push_out(*p, *o, kind, v0, v1, verts, r, 0.05)):
        assert got[0] == (want is not None)
        if want is not None:
            close(got[1:3], want)
            assert abs(math.hypot(got[3], got[4]) - 1.0) < 1e-12


def moves(rng: np.random.Generator, sh: pymunk.Shape, m: int) -> list[tuple]:
    """Moves across the shape's box: from around it to around its mirror image."""
    bb = sh.bb
    mid = np.array([bb.left + bb.right, bb.bottom + bb.top]) / 2
    out = []
    for _ in range(m):
        o = mid + rng.normal(0, 8, 2)
        out.append((o, 2 * mid - o + rng.normal(0, 3, 2)))
    return out


def segment_hit(sh: pymunk.Shape, o: np.ndarray, p: np.ndarray) -> pymunk.SegmentQueryInfo | None:
    """pymunk's segment query, None on a miss (pymunk 7; 6 gives an info without a shape)."""
    info = sh.segment_query(tuple(o), tuple(p))
    return info if info is not None and info.shape is not None else None


@pytest.mark.parametrize("seed", SEEDS)
def test_swept_through(seed: int) -> None:
    """Against the reference; for the circle and the sharp polygon also against pymunk's
    segment query (the entry point and normal, pushed out by eps)."""
    shapes, flat = random_shapes(seed)
    rng = np.random.default_rng(200 + seed)
    for q, sh in enumerate(shapes):
        args = (*shape_args(flat, q), 0.05)
        hits = 0
        for o, p in moves(rng, sh, 150):
            if min(sh.point_query(tuple(o)).distance, sh.point_query(tuple(p)).distance) <= 1e-9:
                continue  # the kernel is asked only about moves that end outside the shape
            got = shapetests._swept_through(o[0], o[1], p[0], p[1], *args)
            want = ref.swept_through(o[0], o[1], p[0], p[1], *args)
            assert got[0] == want[0]
            hits += got[0]
            if got[0]:
                close(got[1:], want[1:], 1e-9)
            if q in (0, 2):
                info = segment_hit(sh, o, p)
                assert got[0] == (info is not None)
                if info is not None:
                    close(got[1:3], np.array(info.point) + 0.05 * np.array(info.normal), 1e-9)
                    close(got[3:], tuple(info.normal), 1e-9)
        assert hits > 10


@pytest.mark.parametrize("seed", SEEDS)
def test_wall_crossing(seed: int) -> None:
    shapes, flat = random_shapes(seed)
    rng = np.random.default_rng(300 + seed)
    for q, sh in enumerate(shapes):
        kind, v0, v1, verts, r = shape_args(flat, q)
        hits = 0
        for o, p in moves(rng, sh, 150):
            got = shapetests._wall_crossing(o[0], o[1], p[0], p[1], kind, v0, v1, verts, r)
            want = ref.wall_crossing(o[0], o[1], p[0], p[1], kind, v0, v1, verts, r)
            assert got[0] == want[0]
            hits += got[0]
            if got[0]:
                close(got[1:], want[1:], 1e-9)
            if q in (0, 2) and sh.point_query(tuple(o)).distance > 1e-9:  # disc / core = shape
                info = segment_hit(sh, o, p)
                assert got[0] == (info is not None)
                if info is not None:
                    close(got[1:], (info.alpha, *info.normal), 1e-9)
        assert hits > 10
