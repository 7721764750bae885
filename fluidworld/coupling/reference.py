"""Slow, obviously-correct numpy references for the coupling's leaf kernels (tests only).

As :mod:`fluidworld.fluid.reference` for the fluid: each is written from the *documented*
semantics of a numba kernel (its docstring, its module's, the layouts that
:mod:`fluidworld.coupling.kernels` documents), not by transliterating it, so that a test
comparing the two can catch a kernel bug; sums run body by body over masks, geometry is explicit.

Conventions: a reference takes its kernel's *meaningful* inputs (only the first ``n`` rows of
longer arrays; the stage kernels' grouped tuples as they are), drops scratch arrays and
*returns* fresh outputs where the kernel writes or adds (``+=``) into arrays passed in; sizes a
kernel reads off its outputs are arguments (``nx``, ``ny``, ``ncol``). Left implicit by the
docstrings and taken here: a pressure cell is ``floor(x / a0)``, and points outside the grid
are ignored where samples are deposited or looked up but counted in the nearest edge cell where
the fluid is counted (:func:`column_tops`, :func:`cell_densities`: the pressure stage's
deposit); a water level is linear between a body's two sides (:func:`level_at`); a sample
stands for a strip of height ``spacing`` (:func:`strip_fraction`); normals are unit vectors and
a zero one has no direction (what would be projected on it is taken whole; the drag skips
it); torques are ``r x J`` about the centre of gravity.

============================================  ===========================================
kernel (``fluidworld.coupling.*``)            reference
============================================  ===========================================
``kernels.body_state``                        :func:`body_state`
``kernels.impulse_velocities``                :func:`impulse_velocities`
``kernels.pose_points``                       :func:`pose_points`
``kernels.rasterise_cover``                   :func:`rasterise_cover`
``kernels.submerged_cover``                   :func:`submerged_cover`
``surface.submerged_areas``                   :func:`submerged_areas`
``surface.sample_bounds``                     :func:`sample_bounds`
``surface.column_tops[_parallel]``            :func:`column_tops`
``surface.water_levels``                      :func:`water_levels`
``buoyancy.sum_contact_impulses``             :func:`sum_contact_impulses`
``buoyancy.cell_densities``                   :func:`cell_densities`
``buoyancy.density_profiles``                 :func:`density_profiles`
``buoyancy.surface_buoyancy``                 :func:`surface_buoyancy`
``fluid_forces.sum_point_impulses``           :func:`sum_point_impulses`
``fluid_forces.drag_impulses``                :func:`drag_impulses`
``fluid_forces.pressure_impulses``            :func:`pressure_impulses`
``containment.max_displacement[_parallel]``   :func:`max_displacement`
``containment.shape_bounds``                  :func:`shape_bounds`
``shapetests._push_out``                      :func:`push_out`
``shapetests._swept_through``                 :func:`swept_through`
``shapetests._wall_crossing``                 :func:`wall_crossing`
============================================  ===========================================

Not covered: ``containment.contain_particles`` (rounds of tests against every shape, whose order is
part of their semantics), ``surface.cap_columns``, ``kernels.limit_speeds`` (a few lines each),
``kernels.rasterise_wall*`` and ``cut_cells``, tested by hand in ``tests/test_coupling_kernels.py``,
``test_coupling_physics.py`` and ``test_wall_cells.py``; the drivers ``exchange_impulses`` and
``sync_geometry`` (tested there against these kernels in order), ``body_rows_range`` (an index range
into the bin stage's order), ``surface_quadrature`` and ``outline_normals`` (numpy)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .surface import DRY_LEVEL

__all__ = [
    "level_at", "strip_fraction", "column_integral", "body_state", "impulse_velocities",
    "pose_points", "rasterise_cover", "submerged_cover", "submerged_areas", "sample_bounds",
    "column_tops", "water_levels", "sum_contact_impulses", "cell_densities", "density_profiles",
    "surface_buoyancy", "sum_point_impulses", "drag_impulses", "pressure_impulses",
    "max_displacement", "shape_bounds", "push_out", "swept_through", "wall_crossing"]

F64 = NDArray[np.float64]
Arr = NDArray[Any]
Group = tuple[Any, ...]
#: A shape test's answer ``(hit, x, y, nx, ny)``: the new point and the outward normal.
Hit = tuple[bool, float, float, float, float]
#: How far a capsule's core is stretched at each end in the sweep and wall tests (a length).
CAPSULE_JOINT_TOL = 1e-6


# ============================================================================ shared rules
def _rot(c: float, s: float) -> F64:
    return np.array([[c, -s], [s, c]])


def _cross(r: Arr, j: Arr) -> float:
    return float(r[0] * j[1] - r[1] * j[0])


def _cell(x: float, a0: float) -> int:
    return int(math.floor(x / a0))


def _by_body(owner: Arr, parts: list[tuple[int, Arr, float]], nb: int) -> tuple[F64, F64]:
    """``(J (nb, 2), tau (nb,))``: the ``(sample, impulse, torque)`` parts summed per body."""
    j, tau = np.zeros((nb, 2)), np.zeros(nb)
    for k, jk, tk in parts:  # in sample order, as the kernels sum
        j[owner[k]] += jk
        tau[owner[k]] += tk
    return j, tau


def level_at(levels: Arr, b: int, x: float) -> float:
    """Body ``b``'s water level at ``x`` from ``levels[b] = (x_left, level_left, x_right,
    level_right)``: linear in between, constant beyond; one side's where the other is NaN."""
    xl, ll, xr, lr = (float(v) for v in levels[b])
    if math.isnan(ll) or math.isnan(lr):  # one side's
        return lr if math.isnan(ll) else ll
    return 0.5 * (ll + lr) if xr <= xl else float(np.interp(x, [xl, xr], [ll, lr]))


def strip_fraction(level: float, y: float, spacing: float) -> float:
    """The part of the strip ``[y - s/2, y + s/2]`` below ``level`` (0 to 1)."""
    return max(min(level, y + 0.5 * spacing) - (y - 0.5 * spacing), 0.0) / spacing


def column_integral(rho_rows: Arr, a0: float, y0: float, y1: float) -> float:
    """``integral_y0^y1 rho dy`` of a profile constant in rows ``[j a0, (j+1) a0)``, its first
    and last rows reaching on below and above the grid."""
    ny = len(rho_rows)
    cuts = [y0, *(k * a0 for k in range(1, ny) if y0 < k * a0 < y1), y1]
    return sum(float(rho_rows[min(max(_cell(0.5 * (lo + hi), a0), 0), ny - 1)]) * (hi - lo)
               for lo, hi in zip(cuts[:-1], cuts[1:], strict=True))


# ============================================================================ bodies, samples
def body_state(raw: Arr, cog_local: Arr) -> F64:
    """State rows ``(x, y, cos a, sin a, vx, vy, w, gx, gy)`` from raw ``(x, y, a, vx, vy, w)``:
    ``g`` is the body-local centre of gravity turned by ``a`` and moved to ``(x, y)``."""
    out = np.zeros((len(raw), 9))
    for k, (x, y, a, vx, vy, w) in enumerate(np.asarray(raw, np.float64)):
        g = np.array([x, y]) + _rot(math.cos(a), math.sin(a)) @ cog_local[k]
        out[k] = (x, y, math.cos(a), math.sin(a), vx, vy, w, g[0], g[1])
    return out


def impulse_velocities(raw: Arr, rows: Arr, dynamic: Arr, j: Arr, tau: Arr, inv_mass: Arr,
                       inv_moment: Arr) -> F64:
    """``(vx, vy, w)`` of every body of ``raw``: ``v + J/m``, ``w + tau/I`` for the coupled
    dynamic bodies (rows ``rows`` of ``raw``), the raw velocities for all others."""
    out = np.array(raw[:, 3:6], np.float64)
    for k, r in enumerate(rows):
        if dynamic[k]:
            out[r] = (raw[r, 3] + j[k, 0] * inv_mass[k], raw[r, 4] + j[k, 1] * inv_mass[k],
                      raw[r, 5] + tau[k] * inv_moment[k])
    return out


def pose_points(local: Arr, owner: Arr, state: Arr) -> tuple[F64, F64]:
    """World positions ``p + R local`` and velocities ``v + w x (x - g)`` of body points."""
    pos, vel = np.zeros((len(local), 2)), np.zeros((len(local), 2))
    for k in range(len(local)):
        st = state[owner[k]]
        pos[k] = st[0:2] + _rot(st[2], st[3]) @ local[k]
        vel[k] = st[4:6] + st[6] * np.array([st[8] - pos[k, 1], pos[k, 0] - st[7]])
    return pos, vel


def rasterise_cover(pos: Arr, vel: Arr, area: Arr, n: int, a0: float, nx: int, ny: int
                    ) -> tuple[F64, F64]:
    """``(frac (ny, nx), cover_vel (ny, nx, 2))``: each cell's sample area over ``a0^2``, capped
    at 1, and its samples' area-weighted mean velocity (0 without area); samples outside the
    grid cover nothing."""
    area_sum, mom = np.zeros((ny, nx)), np.zeros((ny, nx, 2))
    for k in range(n):
        i, j = _cell(pos[k, 0], a0), _cell(pos[k, 1], a0)
        if 0 <= i < nx and 0 <= j < ny:
            area_sum[j, i] += area[k]
            mom[j, i] += area[k] * vel[k]
    has = area_sum > 0.0
    cover_vel = np.where(has[..., None], mom / np.where(has, area_sum, 1.0)[..., None], 0.0)
    return np.minimum(area_sum / (a0 * a0), 1.0), cover_vel


def submerged_cover(pos: Arr, owner: Arr, n: int, dynamic: Arr, levels: Arr, spacing: float,
                    area: Arr, kick_x: float, kick_y: float, vel: Arr) -> tuple[F64, F64]:
    """``(cover area (n,), velocity (n, 2))``: each interior sample's area times the part of its
    strip below its body's level (all of it without a level); samples of bodies that are not
    dynamic get the gravity kick on their velocity."""
    out_area, out_vel = np.zeros(n), np.array(vel[:n], np.float64)
    for k in range(n):
        lev = level_at(levels, owner[k], pos[k, 0])
        out_area[k] = area[k] * (1.0 if math.isnan(lev) else strip_fraction(lev, pos[k, 1],
                                                                             spacing))
        if not dynamic[owner[k]]:
            out_vel[k] += (kick_x, kick_y)
    return out_area, out_vel


def submerged_areas(pos: Arr, area: Arr, owner: Arr, n: int, levels: Arr, spacing: float
                    ) -> F64:
    """Each body's submerged area: its samples' areas times the part of their strips below its
    level (0 without a level or samples)."""
    out = np.zeros(len(levels))
    for b in range(len(levels)):
        for k in np.flatnonzero(np.asarray(owner[:n]) == b):
            lev = level_at(levels, b, pos[k, 0])
            out[b] += 0.0 if math.isnan(lev) else area[k] * strip_fraction(lev, pos[k, 1],
                                                                            spacing)
    return out


def sample_bounds(pos: Arr, owner: Arr, n_bodies: int, half: float) -> F64:
    """``(n_bodies, 4)`` boxes ``(x0, y0, x1, y1)`` of each body's samples grown by ``half``;
    NaN for a body without samples."""
    out = np.full((n_bodies, 4), np.nan)
    for b in range(n_bodies):
        mine = pos[np.asarray(owner) == b]
        if len(mine):
            out[b] = (*(mine.min(axis=0) - half), *(mine.max(axis=0) + half))
    return out


# ============================================================================ water levels
def column_tops(pos: Arr, vel: Arr, n: int, a0: float, cell_count: Arr, solid_frac: Arr,
                gamma: float, col_w: float, ncol: int) -> tuple[F64, float]:
    """``(tops (ncol,), vmax)``: the highest particle of each column ``floor(x / col_w)`` with
    fluid below it (-inf where none): the pressure cell one row below its own holds at least
    ``gamma / 4`` fluid particles (``cell_count - solid_frac * gamma``), or it is in the bottom
    row; and the largest speed component of the ``n``. Outside the grid: the nearest edge."""
    ny, nx = cell_count.shape
    fluid, tops = cell_count - solid_frac * gamma, np.full(ncol, -np.inf)
    for x, y in pos[:n]:
        i, j = min(max(_cell(x, a0), 0), nx - 1), min(max(_cell(y, a0), 0), ny - 1)
        if j == 0 or fluid[j - 1, i] >= 0.25 * gamma:
            c = min(max(_cell(x, col_w), 0), ncol - 1)
            tops[c] = max(tops[c], y)
    return tops, float(np.abs(vel[:n]).max()) if n else 0.0


def water_levels(body_box: Arr, tops: Arr, col_w: float, solid_frac: Arr, a0: float,
                 half_l: float, near: float, far: float, min_clean: float) -> F64:
    """``(n_bodies, 4)`` ``(x_left, level_left, x_right, level_right)``: over the columns wholly
    inside ``[x0 - far, x0 - near]`` (``[x1 + near, x1 + far]``), nearer the body than its
    first column with top -inf, with a finite top whose cell has less than ``min_clean``
    solid cover, the mean centre and the mean top plus ``half_l`` (NaN on a side with one
    where the other has two or more); while neither side has any, ``far`` doubles (4 times);
    else NaN, or ``(x0, DRY_LEVEL, x1, DRY_LEVEL)`` when no band held a column with water
    (finite or NaN top) before its first dry one; NaN for a body outside the domain."""
    (ny, nx), cols, finite = solid_frac.shape, np.arange(len(tops)), np.isfinite(tops)
    centre = (cols + 0.5) * col_w
    ci = np.clip(np.floor(centre / a0), 0, nx - 1).astype(np.int64)
    cj = np.clip(np.floor(np.where(finite, tops, 0.0) / a0), 0, ny - 1).astype(np.int64)
    usable = finite & (solid_frac[cj, ci] < min_clean)
    out = np.full((len(body_box), 4), np.nan)
    for b, (x0, _, x1, y1) in enumerate(body_box):
        wet, inside = False, x1 > 0.0 and x0 < len(tops) * col_w and y1 > 0.0
        for f in far * 2.0 ** np.arange(5 if np.isfinite([x0, x1]).all() and inside else 0):
            used = [0, 0]  # clean columns per side: one beside two or more is no level
            for side, (lo, hi) in enumerate(((x0 - f, x0 - near), (x1 + near, x1 + f))):
                band = (cols * col_w >= lo) & ((cols + 1) * col_w <= hi)
                dry = np.flatnonzero(band & np.isneginf(tops))
                if len(dry):  # nothing beyond the first dry column, outward from the body
                    band &= cols > dry.max() if side == 0 else cols < dry.min()
                wet |= bool(band.any())
                sel = usable & band
                used[side] = int(sel.sum())
                if sel.any():
                    out[b, 2 * side:2 * side + 2] = centre[sel].mean(), tops[sel].mean() + half_l
            out[b, [k for k in range(4) if used[k // 2] == 1 and used[1 - k // 2] >= 2]] = np.nan
            if not np.isnan(out[b, [1, 3]]).all():
                break
        if inside and np.isfinite([x0, x1]).all() and not wet:
            out[b] = (x0, DRY_LEVEL, x1, DRY_LEVEL)
    return out


# ============================================================================ buoyancy
def sum_contact_impulses(pos: Arr, imp: Arr, normal: Arr, owner: Arr, state: Arr
                         ) -> tuple[F64, F64]:
    """``(J, tau)``: each contact impulse whole to its body's ``J``; to ``tau`` the torque of its
    part along the (turned) surface normal, all of it where the normal is zero."""
    parts = []
    for k in range(len(pos)):
        st = state[owner[k]]
        nrm = _rot(st[2], st[3]) @ normal[k]
        along = (imp[k] @ nrm) * nrm if nrm.any() else imp[k]
        parts.append((k, imp[k], _cross(pos[k] - st[7:9], along)))
    return _by_body(owner, parts, len(state))


def cell_densities(pos: Arr, mat: Arr, n: int, rho_table: Arr, a0: float, nx: int, ny: int
                   ) -> tuple[F64, F64]:
    """``(sum of the particles' material densities, particle count)`` per pressure cell."""
    rho, cnt = np.zeros((ny, nx)), np.zeros((ny, nx))
    for p in range(n):
        i, j = min(max(_cell(pos[p, 0], a0), 0), nx - 1), min(max(_cell(pos[p, 1], a0), 0), ny - 1)
        rho[j, i] += rho_table[mat[p]]
        cnt[j, i] += 1.0
    return rho, cnt


def density_profiles(body_box: Arr, cell_rho: Arr, cell_n: Arr, a0: float, near: float,
                     far: float, default_rho: float) -> F64:
    """``(n_bodies, ny)``: per row, the mean density of the fluid in the cells that the bands
    ``[x0 - far, x0 - near]`` and ``[x1 + near, x1 + far]`` touch (each cell once; ``far``
    doubled up to 4 times while they hold no fluid). A row without fluid takes the nearest row
    below that has some, else the nearest above; ``default_rho`` where no row has."""
    ny, nx = cell_n.shape
    i = np.arange(nx)
    out = np.full((len(body_box), ny), float(default_rho))
    for b, (x0, _, x1, _) in enumerate(body_box):
        for f in far * 2.0 ** np.arange(5 if np.isfinite([x0, x1]).all() else 0):
            cols = ((i * a0 <= x0 - near) & ((i + 1) * a0 > x0 - f)) | (
                (i * a0 <= x1 + f) & ((i + 1) * a0 > x1 + near))
            s, cnt = cell_rho[:, cols].sum(axis=1), cell_n[:, cols].sum(axis=1)
            wet = np.flatnonzero(cnt > 0.0)
            if len(wet):
                for j in range(ny):
                    src = wet[wet <= j].max() if wet.min() <= j else wet.min()
                    out[b, j] = s[src] / cnt[src]
                break
    return out


def surface_buoyancy(local: Arr, normal: Arr, length: Arr, owner: Arr, state: Arr,
                     levels: Arr, prof: Arr, a0: float, g_h: float) -> tuple[F64, F64]:
    """``(J, tau)`` of the hydrostatic pressure: at each posed surface point below its body's
    level, ``-p n l`` with ``p = g_h * integral_y^level prof[b]`` (rows of ``a0``); only its
    vertical part goes to ``J``, the torque is the whole impulse's."""
    parts = []
    for k in range(len(local)):
        st = state[owner[k]]
        rot = _rot(st[2], st[3])
        x = st[0:2] + rot @ local[k]
        lev = level_at(levels, owner[k], x[0])
        if x[1] < lev:  # False for NaN
            jk = -g_h * column_integral(prof[owner[k]], a0, x[1], lev) * length[k] * (
                rot @ normal[k])
            parts.append((k, np.array([0.0, jk[1]]), _cross(x - st[7:9], jk)))
    return _by_body(owner, parts, len(state))


# ============================================================================ fluid forces
def sum_point_impulses(pos: Arr, imp: Arr, owner: Arr, state: Arr, scale: float
                       ) -> tuple[F64, F64]:
    """``(J, tau)``: ``scale * imp`` applied at the world points ``pos``, summed per body."""
    parts = [(k, scale * imp[k], _cross(pos[k] - state[owner[k], 7:9], scale * imp[k]))
             for k in range(len(pos))]
    return _by_body(owner, parts, len(state))


def drag_impulses(outline: Group, bodies: Group, pos: Arr, vel: Arr, mat: Arr, n: int,
                  mass_table: Arr, a0: float, r_l: float, coef: float) -> tuple[F64, F64, F64]:
    """``(J, tau, vel[:n] after)``: shear drag on the outline samples of dynamic bodies at or
    below their level that have a normal. The fluid of a sample: the particles within ``r_l``
    of its surface point (the sample moved ``inset`` along the normal) and no more than
    ``r_l / 4`` inside; ``m``, ``u``: their mass and mean velocity. The body gets ``min(rho
    coef, m / 2) ((u - v) . t) t`` along the tangent ``t = (-n_y, n_x)`` (``rho = prof[b,
    row]``, the row clamped into the grid), those particles minus that, shared by mass, all
    from the velocities before."""
    owner, normal, spos, svel, inset = outline[1], outline[2], outline[3], outline[4], outline[6]
    state, dynamic, levels, prof = bodies[0], bodies[1], bodies[2], bodies[5]
    p, v = np.asarray(pos[:n], np.float64), np.asarray(vel[:n], np.float64)
    m = np.asarray(mass_table)[np.asarray(mat[:n])]
    out = v.copy()
    parts = []
    for k in range(len(spos)):
        b, st = owner[k], state[owner[k]]
        nrm = _rot(st[2], st[3]) @ normal[k]
        if not (dynamic[b] and nrm.any() and spos[k, 1] <= level_at(levels, b, spos[k, 0])):
            continue
        q = spos[k] + inset[k] * nrm
        near = (np.hypot(*(p - q).T) < r_l) & ((p - q) @ nrm >= -0.25 * r_l)
        msum = float(m[near].sum())
        if msum <= 0.0:
            continue
        u = (m[near, None] * v[near]).sum(axis=0) / msum
        t = np.array([-nrm[1], nrm[0]])
        row = min(max(_cell(spos[k, 1], a0), 0), prof.shape[1] - 1)
        jk = min(prof[b, row] * coef, 0.5 * msum) * float((u - svel[k]) @ t) * t
        parts.append((k, jk, _cross(spos[k] - st[7:9], jk)))
        out[near] -= jk / msum
    return (*_by_body(owner, parts, len(state)), out)


def _smooth_grad(grad: Arr, count: Arr, x: float, y: float, a0: float, i: int, j: int) -> F64:
    """The correction at ``(x, y)``, bilinear (tent weights) over the four nearest cell centres;
    a centre whose cell is air (count < 0.5) or outside the grid lends cell ``(i, j)``'s."""
    ny, nx = count.shape
    u, v = x / a0, y / a0
    out = np.zeros(2)
    for jj in (math.floor(v - 0.5), math.floor(v - 0.5) + 1):
        for ii in (math.floor(u - 0.5), math.floor(u - 0.5) + 1):
            ok = 0 <= ii < nx and 0 <= jj < ny and count[jj, ii] >= 0.5
            wt = (1.0 - abs(u - (ii + 0.5))) * (1.0 - abs(v - (jj + 0.5)))
            out += wt * (grad[jj, ii] if ok else grad[j, i])
    return out


def pressure_impulses(interior: Group, bodies: Group, cells: Group, a0: float, spacing: float,
                      kick_x: float, kick_y: float, awash: tuple[float, float]) -> tuple[F64, F64]:
    """``(J, tau)``: push ``-rho w A (grad - g h)`` on the interior samples of dynamic bodies in
    a grid cell no face neighbour of which is air (``count < 0.5``), nor, for a body whose box
    top is at most ``awash[1]`` above its kick level, the one above (against vertical gravity)
    partly filled (``< awash[0]``); ``rho = prof[b, row]``, ``w`` the part of the strip below
    the *kick* level (1 without one), ``g h = (kick_x, kick_y)``. The torque: the same pushes,
    ``grad`` bilinear (:func:`_smooth_grad`), about each sample's anchor (``interior[6]``)."""
    owner, area, pos, arm = interior[1], interior[2], interior[3], interior[6]
    state, dynamic, kick_levels, box, prof = bodies[0], bodies[1], bodies[3], bodies[4], bodies[5]
    count, grad = cells[0], cells[2]
    (ny, nx), kick = count.shape, np.array([kick_x, kick_y])
    dj = (1 if kick_y < 0 else -1) if kick_y and abs(kick_y) >= abs(kick_x) else 0  # up
    parts = []
    for k in range(len(pos)):
        b, x, y = owner[k], float(pos[k, 0]), float(pos[k, 1])
        i, j = _cell(x, a0), _cell(y, a0)
        faces = [(j, i - 1), (j, i + 1), (j - 1, i), (j + 1, i)]
        if not (dynamic[b] and 0 <= i < nx and 0 <= j < ny) or any(
                0 <= jj < ny and 0 <= ii < nx and count[jj, ii] < 0.5 for jj, ii in faces):
            continue
        lev = level_at(kick_levels, b, x)
        if dj and box[b, 3] <= lev + awash[1] and 0 <= j + dj < ny and count[j + dj, i] < awash[0]:
            continue  # awash (a NaN level compares false) under a partly filled cell
        c = -prof[b, j] * area[k] * (1.0 if math.isnan(lev) else strip_fraction(lev, y, spacing))
        smooth = c * (_smooth_grad(grad, count, x, y, a0, i, j) - kick)
        cs, sn = state[b, 2], state[b, 3]
        anchor = state[b, 0:2] + np.array([cs * arm[k, 0] - sn * arm[k, 1],
                                           sn * arm[k, 0] + cs * arm[k, 1]])
        parts.append((k, c * (grad[j, i] - kick), _cross(anchor - state[b, 7:9], smooth)))
    return _by_body(owner, parts, len(state))


# ============================================================================ containment
def max_displacement(pos: Arr, start: Arr, n: int) -> float:
    """Largest ``|pos - start|`` over both axes and the first ``n`` particles (0 for none)."""
    return float(np.abs(pos[:n] - start[:n]).max()) if n else 0.0


def shape_bounds(kind: Arr, vstart: Arr, verts: Arr, radius: Arr, margin: float) -> F64:
    """``(n_shapes, 4)``: the box of each shape's posed vertices grown by radius + margin."""
    out = np.zeros((len(kind), 4))
    for q in range(len(kind)):
        v, grow = verts[vstart[q]:vstart[q + 1]], radius[q] + margin
        out[q] = (*(v.min(axis=0) - grow), *(v.max(axis=0) + grow))
    return out


# ============================================================================ shape tests
def _edges(poly: Arr) -> list[tuple[F64, F64, F64]]:
    """``(start, end, outward unit normal)`` of each non-degenerate edge of a CCW polygon."""
    out = []
    for a, b in zip(poly, np.roll(poly, -1, axis=0), strict=True):
        if math.hypot(*(b - a)) > 1e-12:
            out.append((a, b, np.array([b[1] - a[1], a[0] - b[0]]) / math.hypot(*(b - a))))
    return out


def _nearest_on_segment(p: Arr, a: Arr, b: Arr) -> F64:
    d = b - a
    t = 0.0 if d @ d <= 1e-24 else min(max(float((p - a) @ d / (d @ d)), 0.0), 1.0)
    return np.asarray(a + t * d, np.float64)


def _crossing(o: Arr, p: Arr, a: Arr, b: Arr, stretch: float = 0.0) -> tuple[float, float]:
    """``(t, u)`` with ``o + t (p - o) = a + u (b - a)`` on both segments (``0 <= t <= 1``,
    ``u`` within ``stretch`` of ``[0, 1]`` in length units), else NaNs (also if parallel)."""
    m = np.column_stack([p - o, a - b])
    if abs(np.linalg.det(m)) <= 1e-18:
        return math.nan, math.nan
    t, u = np.linalg.solve(m, a - o)
    s = stretch / math.hypot(*(b - a))
    return (float(t), float(u)) if 0.0 <= t <= 1.0 and -s <= u <= 1.0 + s else (math.nan,
                                                                                 math.nan)


def _poly_entry(o: Arr, p: Arr, poly: Arr) -> tuple[float, F64]:
    """``(t, that edge's normal)`` of the move's first inward edge crossing (t NaN if none)."""
    best, nrm = math.nan, np.zeros(2)
    for a, b, n in _edges(poly):
        t, _ = _crossing(o, p, a, b)
        if not t >= best and not math.isnan(t) and float((p - o) @ n) < 0.0:
            best, nrm = t, n
    return best, nrm


def _outside_core(p: Arr, poly: Arr) -> bool:
    return max(float((p - a) @ n) for a, _, n in _edges(poly)) > 0.0


def _circle_entry(o: Arr, p: Arr, c: Arr, r: float) -> tuple[float, float]:
    """``(the move's closest approach to c, t where it first is r from c)``."""
    d = p - o
    ln = math.hypot(d[0], d[1])
    if ln <= 1e-12:
        return math.hypot(*(o - c)), math.nan
    along = float((c - o) @ d) / ln                           # the centre's foot on the line
    h2 = float((c - o) @ (c - o)) - along * along             # its squared distance to it
    closest = math.hypot(*(_nearest_on_segment(c, o, p) - c))
    return closest, (along - math.sqrt(max(r * r - h2, 0.0))) / ln


def _hit(q: Arr, n: Arr) -> Hit:
    return True, float(q[0]), float(q[1]), float(n[0]), float(n[1])


def _radial(p: Arr, q: Arr, dist: float) -> Hit:
    """From core point ``q`` through ``p`` to ``dist`` from ``q`` (straight up if ``p = q``)."""
    ln = math.hypot(*(p - q))
    n = (p - q) / ln if ln > 1e-12 else np.array([0.0, 1.0])
    return _hit(q + dist * n, n)


_MISS = (False, math.nan, math.nan, 0.0, 0.0)


def push_out(px: float, py: float, ox: float, oy: float, kind: int, v0: int, v1: int,
             verts: Arr, r: float, eps: float) -> Hit:
    """``(hit, x, y, nx, ny)``: whether ``p`` is inside the shape and, if so, the point ``eps``
    outside its surface where it goes and the outward normal there (on a miss the kernel gives
    ``p`` back: not compared). ``o``: where the particle came from.

    * circle (the open disc): radially out from the centre;
    * capsule (closer than ``r`` to the core): if the move ``o -> p`` crossed the core *line*
      (strictly) or ``p`` is on the core, along the line's normal on ``o``'s side (``p``'s if
      ``o`` is on it) from ``p``'s nearest core point, else radially from that point;
    * polygon (the closed core, or closer than ``r`` to it): in the core and entered by this
      move, straight out through the edge it entered by; in it since before, through the
      nearest edge; in the rounding, radially from the nearest point of the core.

    Without a radial direction "up" is the kernel's choice (tests check only the distance).
    """
    p, o, pts = np.array([px, py]), np.array([ox, oy]), np.asarray(verts[v0:v1], np.float64)
    if kind == 0:
        return _radial(p, pts[0], r + eps) if math.hypot(*(p - pts[0])) < r else _MISS
    if kind == 1:
        q = _nearest_on_segment(p, pts[0], pts[1])
        e = pts[1] - pts[0]
        if math.hypot(*(p - q)) >= r:
            return _MISS
        if math.hypot(*e) > 1e-12:
            left = np.array([-e[1], e[0]]) / math.hypot(*e)
            side_p, side_o = float((p - pts[0]) @ left), float((o - pts[0]) @ left)
            if side_p * side_o < 0.0 or math.hypot(*(p - q)) <= 1e-12:
                n = left if side_o > 0.0 or (side_o == 0.0 and side_p >= 0.0) else -left
                return _hit(q + n * (r + eps), n)
        return _radial(p, q, r + eps)
    edges = _edges(pts)
    if not _outside_core(p, pts):
        t, n = _poly_entry(o, p, pts) if _outside_core(o, pts) else (math.nan, np.zeros(2))
        if math.isnan(t):                                    # in the core since before
            a, _, n = max(edges, key=lambda e: float((p - e[0]) @ e[2]))
        else:
            a = o + t * (p - o)
        return _hit(p + n * (r + eps - float((p - a) @ n)), n)
    nearest = min((_nearest_on_segment(p, a, b) for a, b, _ in edges),
                  key=lambda q: math.hypot(*(p - q)))
    return _radial(p, nearest, r + eps) if math.hypot(*(p - nearest)) < r else _MISS


def swept_through(ox: float, oy: float, px: float, py: float, kind: int, v0: int, v1: int,
                  verts: Arr, r: float, eps: float) -> Hit:
    """For a move ``o -> p`` outside the shape at both ends: whether it passed through, and if
    so ``(True, entry pushed out by r + eps, normal there)``. Circle: ``o`` outside the disc,
    the move closer than ``r`` to the centre, entry where it is first ``r`` from it (radially
    out). Capsule: the move crosses the core segment (stretched by :data:`CAPSULE_JOINT_TOL`;
    not parallel), out from the crossing along the normal on ``o``'s side; else the circle's
    rule on the end it meets first. Polygon: out from the first inward edge crossing."""
    p, o, pts = np.array([px, py]), np.array([ox, oy]), np.asarray(verts[v0:v1], np.float64)
    if kind == 0:
        closest, t = _circle_entry(o, p, pts[0], r)
        if math.isnan(t) or closest >= r or math.hypot(*(o - pts[0])) < r:
            return _MISS
        return _radial(o + t * (p - o), pts[0], r + eps)
    if kind == 1:
        t, u = _crossing(o, p, pts[0], pts[1], CAPSULE_JOINT_TOL)
        if math.isnan(t):
            ends = [swept_through(ox, oy, px, py, 0, v, v + 1, verts, r, eps) for v in (v0, v0 + 1)]
            return min(ends, key=lambda e: math.hypot(e[1] - ox, e[2] - oy) if e[0] else math.inf)
        e = pts[1] - pts[0]
        left = np.array([-e[1], e[0]]) / math.hypot(*e)
        n = left if float((o - pts[0]) @ left) > 0.0 else -left
        return _hit(pts[0] + u * e + n * (r + eps), n)
    t, n = _poly_entry(o, p, pts)
    return _MISS if math.isnan(t) else _hit(o + t * (p - o) + n * (r + eps), n)


def wall_crossing(ax: float, ay: float, px: float, py: float, kind: int, v0: int, v1: int,
                  verts: Arr, r: float) -> tuple[bool, float, float, float]:
    """``(hit, t, nx, ny)``: the first point ``a + t (p - a)`` where the move passes a wall's
    barrier -- a capsule's core segment (stretched by :data:`CAPSULE_JOINT_TOL`), a circle's
    closed disc, a polygon's core -- and the barrier's normal there, towards ``a``'s side. A
    move that starts on or inside the barrier does not count (``t = 2`` on a miss)."""
    p, a, pts = np.array([px, py]), np.array([ax, ay]), np.asarray(verts[v0:v1], np.float64)
    miss = (False, 2.0, 0.0, 0.0)
    if kind == 1:
        e = pts[1] - pts[0]
        if math.hypot(*e) <= 1e-12:
            return miss
        left = np.array([-e[1], e[0]]) / math.hypot(*e)
        side_a = float((a - pts[0]) @ left)
        t, _ = _crossing(a, p, pts[0], pts[1], CAPSULE_JOINT_TOL)
        n = left if side_a > 0.0 else -left
        return miss if side_a == 0.0 or math.isnan(t) else (True, t, float(n[0]), float(n[1]))
    if kind == 0:
        closest, t = _circle_entry(a, p, pts[0], r)
        if r <= 0.0 or math.hypot(*(a - pts[0])) <= r or math.isnan(t) or closest > r:
            return miss
        n = (a + t * (p - a) - pts[0]) / r
        return True, t, float(n[0]), float(n[1])
    t, n = _poly_entry(a, p, pts) if _outside_core(a, pts) else (math.nan, np.zeros(2))
    return miss if math.isnan(t) else (True, t, float(n[0]), float(n[1]))
