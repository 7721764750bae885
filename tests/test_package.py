"""Package-level behaviour: what importing fluidworld sets up."""

from __future__ import annotations

import os
import subprocess
import sys


def _omp_env(env: dict[str, str]) -> tuple[str, str]:
    code = ("import os, fluidworld; "
            "print(os.environ.get('GOMP_SPINCOUNT', '-'), os.environ.get('OMP_WAIT_POLICY', '-'))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, timeout=300)
    spin, policy = out.stdout.split()
    return spin, policy


def test_idle_openmp_workers_spin_briefly_unless_the_application_chose():
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    assert _omp_env(env) == ("10000", "-")
    # an application's own choice wins, whichever variable it set
    assert _omp_env({**env, "GOMP_SPINCOUNT": "5"}) == ("5", "-")
    assert _omp_env({**env, "OMP_WAIT_POLICY": "PASSIVE"}) == ("-", "PASSIVE")
