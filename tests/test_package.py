"""Package-level behaviour: what importing fluidworld sets up."""

from __future__ import annotations

import os
import subprocess
import sys


def _omp_policy(env: dict[str, str]) -> str:
    code = "import os, fluidworld; print(os.environ['OMP_WAIT_POLICY'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, timeout=300)
    return out.stdout.strip()


def test_idle_openmp_workers_sleep_unless_the_application_chose():
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    assert _omp_policy(env) == "PASSIVE"
    assert _omp_policy({**env, "OMP_WAIT_POLICY": "ACTIVE"}) == "ACTIVE"
