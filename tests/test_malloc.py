"""The allocator tuning applied at import (gluonlite/_malloc.py)."""
import os
import platform
import subprocess
import sys

import gluonlite._malloc as malloc


def test_tuning_is_applied_on_glibc_linux_and_can_be_disabled():
    code = "import gluonlite._malloc as m; print(m.TUNED)"
    env = dict(os.environ, GLUONLITE_TUNE_MALLOC="0")
    off = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert off == "False"
    if sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc":
        assert malloc.tune_malloc() is True
