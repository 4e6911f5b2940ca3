"""``mx.autograd.Function``: a user-defined differentiable function on NDArrays.

Its call is one tape entry whose backward runs the user's ``backward``; the tape
(:mod:`gluonlite.autograd`, below this layer) publishes the class under its MXNet name
(``autograd.use_arrays``).
"""
from __future__ import annotations

from .. import autograd as _ag
from ..base import MXNetError
from .ndarray import NDArray

__all__ = ["Function"]


class Function:
    """User-defined differentiable function (``mx.autograd.Function``).

    Subclass it and implement ``forward(*inputs)`` and ``backward(*output_grads)``
    on NDArrays; call the instance like a function inside ``record()``.
    """

    def __init__(self):
        self._used = False
        self.saved_tensors = ()

    def save_for_backward(self, *args) -> None:
        """Keep arrays for ``backward``."""
        self.saved_tensors = args

    def forward(self, *inputs):
        raise MXNetError(f"{type(self).__name__}: forward is not defined")

    def backward(self, *output_grads):
        raise MXNetError(f"{type(self).__name__}: backward is not defined")

    def __call__(self, *inputs):
        if self._used:
            raise MXNetError(f"{type(self).__name__}: each Function instance can be called "
                             "only once; create a new instance per call")
        self._used = True
        with _ag.pause(train_mode=_ag.is_training()):
            outputs = self.forward(*inputs)
        single = isinstance(outputs, NDArray)
        outs = [outputs] if single else list(outputs)
        if _ag.is_recording():
            parents = []
            for x in inputs:
                if x._entry is not None:
                    parents.append(x._entry)
                elif x._grad_req not in (None, "null"):
                    parents.append(x)
                else:
                    parents.append(None)
            if any(p is not None for p in parents):
                ctx = outs[0].context
                node = _ag.Node(None, None, parents, None, None, [], _ag.is_training(), ctx,
                            [o.shape for o in outs], [o.dtype for o in outs], function=self)
                node.null_leaves = _ag.null_leaves(inputs)
                self._ctx = ctx
                new_outs = []
                for i, o in enumerate(outs):
                    y = NDArray._wrap(o._data, o.context)
                    y._entry = (node, i)
                    new_outs.append(y)
                outs = new_outs
        return outs[0] if single else tuple(outs)

    def _run_backward(self, out_grads):
        grads_nd = [NDArray._wrap(g, self._ctx) for g in out_grads]
        res = self.backward(*grads_nd)
        if isinstance(res, NDArray):
            res = [res]
        return [None if r is None else r._data for r in res]
