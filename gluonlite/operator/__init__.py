"""User-defined operators in Python (``mx.operator``): ``CustomOp``, ``CustomOpProp``,
``register``.

Write the arithmetic in a :class:`CustomOp` subclass, describe the operator (inputs,
outputs, shapes, dtypes) in a :class:`CustomOpProp` subclass, register the property
under a name, and call it with ``nd.Custom(*inputs, op_type=name, **kwargs)`` or
``sym.Custom(...)``.  It then works like any registry operator: with autograd, in
symbols, and inside hybridized blocks.

Example
-------
>>> class Square(mx.operator.CustomOp):
...     def forward(self, is_train, req, in_data, out_data, aux):
...         self.assign(out_data[0], req[0], in_data[0] * in_data[0])
...     def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
...         self.assign(in_grad[0], req[0], 2 * in_data[0] * out_grad[0])
>>> @mx.operator.register("square")
... class SquareProp(mx.operator.CustomOpProp):
...     def create_operator(self, ctx, in_shapes, in_dtypes):
...         return Square()
>>> mx.nd.Custom(mx.nd.array([1, 2]), op_type="square")

The package, by purpose: ``custom`` (``CustomOp``, ``CustomOpProp``, ``register`` and
the runtime of the ``Custom`` operator, whose definition is in the registry,
``gluonlite/ops/custom.py``: it wraps the raw arrays as NDArrays, pauses the tape, calls
the user's operator, and installs itself into that definition when it loads) and
``legacy`` (MXNet 1.x's deprecated ``PythonOp``/``NumpyOp``/``NDArrayOp``, adapters over
the same operator).  This face also hands out what MXNet's module imported (below).
"""
import collections  # noqa: F401 - in the star-import, as MXNet's
import ctypes  # noqa: F401 - in the star-import, as MXNet's
import traceback  # noqa: F401 - in the star-import, as MXNet's
import warnings  # noqa: F401 - in the star-import, as MXNet's
from ctypes import (CFUNCTYPE, POINTER, Structure, c_bool, c_char, c_char_p,  # noqa: F401
                    c_int, c_void_p, cast, pointer)
from threading import Lock  # noqa: F401 - in the star-import, as MXNet's

from .. import context  # noqa: F401 - in the star-import, as MXNet's
from .. import symbol  # noqa: F401 - in the star-import, as MXNet's
from ..base import MXNetError, NDArrayHandle, c_str, py_str  # noqa: F401
from ..ndarray import array  # noqa: F401 - in the star-import, as MXNet's
from ..ndarray.ndarray import NDArray  # noqa: F401 - in the star-import, as MXNet's
from ..util import is_np_array  # noqa: F401 - in the star-import, as MXNet's
from .custom import (CustomOp, CustomOpProp, OperatorArguments, get_all_registered_operators,
                     get_operator_arguments, register)
from .legacy import NDArrayOp, NumpyOp, PythonOp

__all__ = ["CustomOp", "CustomOpProp", "register", "get_all_registered_operators",
           "PythonOp", "NumpyOp", "NDArrayOp", "OperatorArguments",
           "get_operator_arguments"]
# MXNet's module has no ``__all__``: ``from mxnet.operator import *`` also hands out what
# it imports, and MXNet's tests use those names (a monitor callback's
# ``NDArray(ctypes.cast(handle, NDArrayHandle))``); the ones with a meaning here follow
__all__ += ["ctypes", "CFUNCTYPE", "POINTER", "Structure", "c_bool", "c_char", "c_char_p",
            "c_int", "c_void_p", "cast", "pointer", "NDArray", "NDArrayHandle", "array",
            "c_str", "py_str", "collections", "traceback", "warnings", "Lock",
            "is_np_array", "context", "symbol"]
