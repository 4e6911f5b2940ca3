"""Gluon's ``Constant``: a parameter that never changes (MXNet 1.9 ``mx.gluon.Constant``,
importable from ``gluon.parameter`` as in MXNet)."""
from __future__ import annotations

import warnings

from .parameter import Parameter, _nd

__all__ = ["Constant"]


class Constant(Parameter):
    """A parameter that never changes (``grad_req='null'``), initialized to ``value``.

    Parameters
    ----------
    name : str
        Name.
    value : array-like or NDArray
        The constant value; its shape and dtype become the parameter's.
    """

    def __init__(self, name: str, value):
        nd = _nd()
        if not isinstance(value, nd.NDArray):
            value = nd.array(value)
        self.value = value
        from .. import initializer

        class _ConstantInit(initializer.Initializer):
            def _init_weight(self, _, arr):
                value.copyto(arr)

        init_name = f"Constant_{name}_{id(self)}"
        alias = getattr(initializer, "alias", None)
        if alias is not None:
            with warnings.catch_warnings():
                # a reused id() re-registers the name; MXNet warns about it, uselessly
                warnings.filterwarnings("ignore", message=".*registered with name constant_")
                alias(init_name)(_ConstantInit)
            init = init_name
        else:
            init = _ConstantInit()
        super().__init__(name, grad_req="null", shape=value.shape, dtype=value.dtype,
                         init=init)

    def __repr__(self) -> str:
        return f"Constant {self.name} (shape={self.shape}, dtype={self.dtype})"

    @property
    def grad_req(self) -> str:
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req: str) -> None:
        if req != "null":
            warnings.warn(f'Constant parameter "{self.name}" does not support grad_req other '
                          f'than "null", and new value "{req}" is ignored.', stacklevel=2)
            return
        Parameter.grad_req.fset(self, req)
