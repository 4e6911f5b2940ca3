"""Run test code in a fresh Python interpreter (import-time behaviour: the mxnet alias,
what ``import gluonlite`` changes in NumPy)."""
import subprocess
import sys


def assert_runs_ok(code: str, timeout: float = 120) -> None:
    """Run ``code``, which ends by printing ``ok``, in a new interpreter; fail with its
    standard error otherwise."""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=timeout)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ok", res.stdout
