"""MXNet 1.x's deprecated Python operators ``PythonOp``, ``NumpyOp`` and ``NDArrayOp``,
as adapters over the ``Custom`` operator of :mod:`gluonlite.operator.custom`.

Subclass ``NumpyOp`` (NumPy arrays) or ``NDArrayOp`` (NDArrays), override ``forward``,
``backward``, ``infer_shape``, ``list_arguments``, ``list_outputs``, and call
``get_symbol(*symbols)``: each instance is registered once as a custom operator.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np

from ..symbol import Custom
from . import custom as _operator

_COUNTER = itertools.count()


class PythonOp:
    """Base class of the deprecated Python operators.

    Parameters
    ----------
    need_top_grad : bool
        Whether backward reads the output gradient (False for loss layers).
    """

    def __init__(self, need_top_grad: bool = True):
        self.info_ = None
        self.need_top_grad_ = need_top_grad
        self._op_type = None
        warnings.warn("PythonOp has been deprecated. Please use CustomOp")

    def __call__(self, *args, **kwargs):
        return self.get_symbol(*args, **kwargs)

    def get_symbol(self, *args, **kwargs):
        """A ``Custom`` symbol running this operator on the symbols ``args``."""
        if self._op_type is None:
            self._op_type = f"_legacy_python_op{next(_COUNTER)}"
            _operator.register(self._op_type)(_prop_class(self))
        return Custom(*args, op_type=self._op_type, **kwargs)

    def forward(self, in_data, out_data) -> None:
        """Write the outputs (default: copy the first input)."""
        out_data[0][:] = in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad) -> None:
        """Write the input gradients (default: ones)."""
        in_grad[0][:] = 1.0

    def infer_shape(self, in_shape):
        """``(input shapes, output shapes)`` (default: the output has the first input's)."""
        return in_shape, [in_shape[0]]

    def list_outputs(self) -> list:
        return ["output"]

    def list_arguments(self) -> list:
        return ["data"]

    def need_top_grad(self) -> bool:
        return self.need_top_grad_

    def _wrap(self, arrays):
        return list(arrays)

    def _unwrap(self, dst, src) -> None:
        pass


class NumpyOp(PythonOp):
    """A Python operator whose ``forward``/``backward`` see NumPy arrays."""

    def __init__(self, need_top_grad: bool = True):
        super().__init__(need_top_grad)
        warnings.warn("NumpyOp has been deprecated. Please use CustomOp")

    def _wrap(self, arrays):
        return [np.array(a.asnumpy()) for a in arrays]

    def _unwrap(self, dst, src) -> None:
        for d, s in zip(dst, src):
            d[:] = s


class NDArrayOp(PythonOp):
    """A Python operator whose ``forward``/``backward`` see NDArrays."""

    def __init__(self, need_top_grad: bool = True):
        super().__init__(need_top_grad)
        warnings.warn("NDArrayOp has been deprecated. Please use CustomOp")


def _prop_class(op: PythonOp) -> type:
    """A :class:`CustomOpProp` subclass describing ``op``."""

    class _Run(_operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            ins, outs = op._wrap(in_data), op._wrap(out_data)
            op.forward(in_data=ins, out_data=outs)
            op._unwrap(out_data, outs)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            grads = op._wrap(in_grad)
            op.backward(out_grad=op._wrap(out_grad), in_data=op._wrap(in_data),
                        out_data=op._wrap(out_data), in_grad=grads)
            op._unwrap(in_grad, grads)

    class _Prop(_operator.CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=op.need_top_grad())

        def list_arguments(self):
            return list(op.list_arguments())

        def list_outputs(self):
            return list(op.list_outputs())

        def infer_shape(self, in_shape):
            ishape, oshape = op.infer_shape(in_shape)
            return list(ishape), list(oshape), []

        def create_operator(self, ctx, in_shapes, in_dtypes):
            return _Run()

    return _Prop
