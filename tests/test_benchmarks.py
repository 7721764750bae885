"""The benchmark scripts run and print what the issues quote (a quick smoke run, no timings
asserted)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fluidworld.fluid import FluidParams

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"


def _run(script: str, *args: str) -> str:
    out = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True,
                         text=True, timeout=600, check=True)
    return out.stdout


def test_paper_table1_prints_the_five_rows_with_rounds():
    text = _run("paper_table1.py", "--steps", "2", "--rounds", "2")
    rows = [line for line in text.splitlines() if re.match(r"\s+\d+\s+\d+\s+\d+\s+\d+ \|", line)]
    assert [int(r.split()[2]) for r in rows] == [260, 376, 660, 1134, 6114]
    for row in rows:
        ms = float(row.split("|")[1].split()[0])
        assert ms > 0.0
        assert len(row.split("|")[-1].split("/")) == 2  # both rounds' medians


def test_scaling_prints_both_thread_counts_and_the_profile():
    text = _run("scaling.py", "--sizes", "1500", "--steps", "2", "--rounds", "1")
    assert re.search(r"^\s+\d+\s+1\s+[\d.]+", text, re.M)
    assert "per-stage ms/step" in text and "local_repulsion" in text
    assert re.search(r"machine before: .* loop [\d.]+x and a memory stream [\d.]+x", text)
    assert "machine after:" in text


def test_kernel_profile_names_the_kernels_and_the_rest():
    text = _run("kernel_profile.py", "--steps", "3")
    assert re.search(r"6114 particles, 1 thread\(s\), [\d.]+ ms/step \([\d.-]+ outside", text)
    assert "repulsion.repulse_passes" in text and "collision.srd_collide" in text


def test_contention_prints_fixed_and_auto_rows_against_one_thread():
    text = _run("contention.py", "--sizes", "1500", "--steps", "20")
    assert "one core busy" in text
    rows = [line.split() for line in text.splitlines() if re.match(r"\s+1500\s", line)]
    assert [r[1] for r in rows] == ["1", "2", "auto"]
    assert all(float(r[2]) > 0 for r in rows) and rows[0][4] == "1.00x" == rows[0][5]
    assert all(len(r) == 7 for r in rows)  # median, mean, both ratios, switches


def test_soak_checks_a_level_and_prints_its_books():
    text = _run("soak.py", "--steps", "40", "--every", "20", "--levels", "faucet_and_drain")
    row = next(line.split() for line in text.splitlines() if line.startswith("faucet_and_drain"))
    assert int(row[1]) == 40 and row[4:9] == ["0", "0", "0", "0", "0"]


def test_peers_short_mode_prints_both_peers_and_their_ratio():
    text = _run("peers.py", "--sizes", "1500", "--frames", "3", "--warmup", "1")
    rows = [line.split() for line in text.splitlines() if re.match(r"\s+1500\s", line)]
    import importlib.util

    taichi = importlib.util.find_spec("taichi") is not None
    assert [r[1] for r in rows] == ["fluidworld", "pymunk"] + (["taichi"] if taichi else [])
    assert rows[0][3] == "1.00x" and all(float(r[2]) > 0 for r in rows[1:])
    assert taichi or "taichi: not run (not installed" in text


def test_the_taichi_peer_is_a_fluid_that_settles():
    """The Taichi peer's dam break (position-based fluids) stays finite and in the box, and
    after 5 s its water lies near the level the block's area gives (no gas of particles)."""
    pytest.importorskip("taichi")
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import peer_taichi
    import peers

    side, box = peers.domain(3000)
    p = FluidParams.game(box, box)
    frame, positions = peer_taichi.make_stepper(peers.block(3000, p.r_l) + 1.0, box, p.r_l,
                                                p.gravity, p.h, p.substeps)
    for _ in range(300):
        frame()
    x = positions()
    level = side * side / box
    assert np.isfinite(x).all() and (x >= 0).all() and (x <= box).all()
    assert (x[:, 1] > 2.0 * level).mean() < 0.02
    assert np.percentile(x[:, 1], 50) < level


def test_solvers_prints_every_solver_in_one_table():
    from fluidworld.fluid.solvers import SOLVER_NAMES

    text = _run("solvers.py", "--sizes", "1500", "--steps", "2")
    rows = [line.split() for line in text.splitlines()
            if re.match(r"\s*(srd|ddr|constraint)\s+[\d.]+\s+[\d.]+x\s+[\d.]+\s+[\d.]+\s+"
                        r"[\d.]+\s+[\d.]+\s+[+-][\d.]+$", line)]
    assert [r[0] for r in rows] == list(SOLVER_NAMES) and rows[0][2] == "1.00x"
    for r in rows:  # bottom / mean density, rest speed / sqrt(g d), volume, Archimedes error
        assert 0.95 < float(r[3]) < 1.2 and float(r[4]) < 0.05  # 1.07, 1.07, 1.00
        assert 0.8 < float(r[6]) < 1.2 and abs(float(r[7])) < 0.1, r


def test_the_solvers_dam_break_lays_its_column_square_or_as_deep_as_asked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    import solvers

    square = solvers.dam_break(2000, "srd")
    shallow = solvers.dam_break(2000, "srd", depth=40.0)
    for fs, deep in ((square, np.sqrt(2000 * 20.0)), (shallow, 40.0)):
        y = fs.positions[:, 1]
        assert abs(fs.count - 2000) < 100
        assert abs(y.max() - deep) < fs.r_l, (y.max(), deep)
    # a box 2.5x the column's width and twice its depth (square: 2.5x its side both ways)
    assert (shallow.params.width, shallow.params.height) == (2500.0, 80.0)
    assert square.params.width == square.params.height == 500.0
    with pytest.raises(subprocess.CalledProcessError):
        _run("solvers.py", "--depth", "1")


def test_jelly_prints_a_row_per_solver_with_the_springs():
    text = _run("jelly.py", "--blocks", "2", "--steps", "2", "--rounds", "1", "--settle", "60")
    rows = {r[0]: r for r in (line.split() for line in text.splitlines())
            if r and r[0] in ("srd", "ddr", "constraint")}
    assert set(rows) == {"srd", "ddr", "constraint"}
    for r in rows.values():
        assert int(r[2]) > 0 and float(r[3]) > 0 and float(r[4]) > 0
        assert float(r[6]) > 40.0  # the blocks (60 high) stand


def test_generality_prints_a_row_per_case_and_the_misses():
    for only in ("float", "rest", "vary", "contrast"):
        text = _run("generality.py", "--solvers", "srd", "--only", only, "--quick", "--limit",
                    "1", "--jobs", "1")
        rows = [line for line in text.splitlines() if line.startswith("[")]
        assert len(rows) == 1 and rows[0].split()[1:3] == [only, "srd"], rows
        assert re.search(r"\s+\d+\.\d{3}\s+(ok|MISS)\s", rows[0]), rows[0]  # figure, verdict
        assert re.search(r"^\d of 1 hold; misses:$", text, re.M)
