"""The BLAS thread count gluonlite chooses at import, and the user's choice winning."""
import json
import os
import subprocess
import sys

import pytest

from gluonlite import _blas

_REPORT = ("import json, numpy, gluonlite\n"
           "from gluonlite import _blas\n"
           "print(json.dumps([_blas.THREADS, _blas.blas_threads(), _blas.usable_cores()]))\n")


def _report(**env_vars) -> list:
    env = {k: v for k, v in os.environ.items() if k not in _blas.USER_VARIABLES}
    env.update(env_vars)
    res = subprocess.run([sys.executable, "-c", _REPORT], env=env, capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.splitlines()[-1])


def test_default_is_half_the_cores_at_least_one():
    assert [_blas.default_threads(n) for n in (1, 2, 3, 4, 16)] == [1, 1, 1, 2, 8]


def test_import_sets_the_default_when_the_user_set_nothing():
    if _blas.blas_threads() is None:
        pytest.skip("NumPy here does not use OpenBLAS")
    chosen, running, cores = _report()
    assert chosen == running == _blas.default_threads(cores)


@pytest.mark.parametrize("variable", _blas.USER_VARIABLES)
def test_a_users_setting_is_left_alone(variable):
    if _blas.blas_threads() is None:
        pytest.skip("NumPy here does not use OpenBLAS")
    chosen, running, cores = _report(**{variable: "2"})
    assert chosen is None
    if variable != "MKL_NUM_THREADS":  # OpenBLAS itself reads the other two
        assert running == min(2, os.cpu_count())


def test_set_and_read_back():
    before = _blas.blas_threads()
    if before is None:
        pytest.skip("NumPy here does not use OpenBLAS")
    try:
        assert _blas.set_blas_threads(1) and _blas.blas_threads() == 1
    finally:
        _blas.set_blas_threads(before)
