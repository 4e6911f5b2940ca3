"""Testing helpers with MXNet 1.9's ``mxnet.test_utils`` names, signatures and defaults.

Inputs may be NDArrays, NumPy arrays or Python numbers.  The gradient checkers accept,
besides a Symbol, any Python callable over NDArrays: its gradient (through
``gluonlite.autograd``) is compared with central finite differences.

The package, by purpose: ``core`` (defaults, tolerances, comparisons, environment
helpers), ``checks`` (consistency, speed and optimizer checks, matrix makers),
``random_data`` (random shapes and arrays, sparse ones included), ``data`` (datasets
and iterators) and ``gradcheck`` (finite-difference gradient checks).  Every
name is exported here, and, as MXNet's module has no ``__all__``, its star-import also
hands out the modules and names it imports (below).
"""
import bz2  # noqa: F401
import errno  # noqa: F401
import gzip  # noqa: F401
import json  # noqa: F401
import logging  # noqa: F401
import numbers  # noqa: F401
import os  # noqa: F401
import platform  # noqa: F401
import struct  # noqa: F401
import sys  # noqa: F401
import time  # noqa: F401
import traceback  # noqa: F401
import zipfile  # noqa: F401
from collections import OrderedDict  # noqa: F401
from contextlib import contextmanager  # noqa: F401

import numpy as np  # noqa: F401
import numpy.random as rnd  # noqa: F401
import numpy.testing as npt  # noqa: F401

try:
    import scipy.stats as ss  # noqa: F401
except ImportError:  # scipy is optional, as in MXNet
    ss = None

import gluonlite as mx  # noqa: F401 - the package face: this package loads after it
from ..base import MXNetError  # noqa: F401
from ..context import Context, current_context  # noqa: F401
from ..ndarray import array  # noqa: F401
from ..runtime import Features  # noqa: F401
from ..symbol import Symbol  # noqa: F401
from ..util import getenv, setenv, use_np  # noqa: F401
from . import checks as _checks
from . import core as _core
from . import data as _data
from . import random_data as _random_data
from .gradcheck import (check_numeric_gradient, check_symbolic_backward,  # noqa: F401
                        check_symbolic_forward, numeric_grad)
from .checks import *  # noqa: F401,F403
from .core import *  # noqa: F401,F403
from .data import *  # noqa: F401,F403
from .random_data import *  # noqa: F401,F403

__all__ = _core.__all__ + _checks.__all__ + _random_data.__all__ + _data.__all__ + [
    "numeric_grad", "check_numeric_gradient", "check_symbolic_forward",
    "check_symbolic_backward",
    "bz2", "errno", "gzip", "json", "logging", "numbers", "platform", "struct", "time",
    "traceback", "zipfile", "os", "sys", "np", "npt", "rnd", "ss", "mx", "OrderedDict",
    "contextmanager", "Context", "current_context", "array", "use_np", "getenv", "setenv",
    "Symbol", "Features"]
