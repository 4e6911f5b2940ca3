"""``MutableModule``: a Module whose input shapes may change from batch to batch
(MXNet kept it in its detection examples; here it is ``mx.mod.MutableModule``).

It binds with the largest shapes given (``max_data_shapes``), then every batch of
another shape re-plans the same network: the parameters, their gradients and the
optimizer state are the same objects for all shapes, and the engine keeps the plan
of each shape it has seen.
"""
from __future__ import annotations

import logging

from ..io import DataDesc
from .module import Module

__all__ = ["MutableModule"]


def _with_max(shapes, max_shapes):
    """``shapes`` with the shapes of the names in ``max_shapes`` replaced by those."""
    if shapes is None:
        return None
    maxima = dict(max_shapes or [])
    out = []
    for desc in shapes:
        desc = desc if isinstance(desc, DataDesc) else DataDesc(*desc)
        if desc.name in maxima:
            desc = DataDesc(desc.name, tuple(maxima[desc.name]), desc.dtype, desc.layout)
        out.append(desc)
    return out


class MutableModule(Module):
    """A Module for inputs of changing shapes.

    Parameters
    ----------
    symbol, data_names, label_names, logger, context, work_load_list
        As for :class:`Module`.
    max_data_shapes, max_label_shapes : list of (name, shape), optional
        Shapes to bind with (the largest the module will see).
    fixed_param_prefix : list of str, optional
        Parameters whose names start with one of these are not updated.
    """

    def __init__(self, symbol, data_names, label_names, logger=logging, context=None,
                 work_load_list=None, max_data_shapes=None, max_label_shapes=None,
                 fixed_param_prefix=None):
        prefixes = list(fixed_param_prefix or [])
        inputs = set(data_names or []) | set(label_names or [])
        fixed = [name for name in symbol.list_arguments()
                 if name not in inputs and any(name.startswith(p) for p in prefixes)]
        super().__init__(symbol, data_names, label_names, logger=logger, context=context,
                         work_load_list=work_load_list, fixed_param_names=fixed)
        self._max_data_shapes = list(max_data_shapes or [])
        self._max_label_shapes = list(max_label_shapes or [])

    def bind(self, data_shapes, label_shapes=None, for_training: bool = True,
             inputs_need_grad: bool = False, force_rebind: bool = False, shared_module=None,
             grad_req="write") -> None:
        """Bind with the maximum shapes where given."""
        super().bind(_with_max(data_shapes, self._max_data_shapes),
                     _with_max(label_shapes, self._max_label_shapes), for_training,
                     inputs_need_grad, force_rebind, shared_module, grad_req)

    def _maybe_reshape(self, data_batch) -> None:
        provided = getattr(data_batch, "provide_label", None)
        if provided and self._label_shapes and [tuple(d[1]) for d in provided] != \
                [tuple(d.shape) for d in self._label_shapes] and \
                [tuple(d.shape) for d in data_batch.data] == \
                [tuple(d.shape) for d in self._data_shapes]:
            self.reshape(self._data_shapes, provided)  # only the labels changed
            return
        super()._maybe_reshape(data_batch)
