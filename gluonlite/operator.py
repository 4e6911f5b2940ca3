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

The older ``NumpyOp``/``NDArrayOp``/``PythonOp`` interfaces (deprecated in MXNet 1.x)
are not provided.
"""
from __future__ import annotations

from typing import Callable

from .ops.custom import register_prop
from .ops.registry import op_names

__all__ = ["CustomOp", "CustomOpProp", "register", "get_all_registered_operators"]


class CustomOp:
    """Base class of operators implemented in Python.

    Override :meth:`forward` and :meth:`backward`; both receive lists of NDArrays on
    the operator's context, and run with autograd recording paused.
    """

    def __init__(self):
        pass

    def forward(self, is_train, req, in_data, out_data, aux) -> None:
        """Compute the outputs.  Override when creating new operators.

        Parameters
        ----------
        is_train : int
            1 in training mode, 0 in predict mode.
        req : list of str
            How to write each output: ``'null'``, ``'write'``, ``'inplace'`` or
            ``'add'``; :meth:`assign` handles it.
        in_data, out_data, aux : list of NDArray
            Inputs (``list_arguments`` order), outputs (preallocated with the
            inferred shapes and dtypes) and auxiliary states (writable).
        """

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux) -> None:
        """Compute the input gradients.  Override when creating new operators.

        Parameters
        ----------
        req : list of str
            How to write each input gradient (see :meth:`assign`).
        out_grad, in_data, out_data, in_grad, aux : list of NDArray
            Head gradients, the forward's inputs and outputs, the gradient buffers to
            fill (one per argument) and the auxiliary states.
        """

    def assign(self, dst, req: str, src) -> None:
        """Write ``src`` into ``dst`` as ``req`` says (``'null'`` does nothing,
        ``'write'``/``'inplace'`` overwrite, ``'add'`` accumulates)."""
        if req == "null":
            return
        if req in ("write", "inplace"):
            dst[:] = src
        elif req == "add":
            dst[:] += src


class CustomOpProp:
    """Base class of operator properties implemented in Python.

    Parameters
    ----------
    need_top_grad : bool
        Whether backward reads the head gradient (``False`` for loss layers); used by
        the default :meth:`declare_backward_dependency`.

    Keyword arguments given to ``Custom(...)`` reach a subclass's ``__init__`` as
    strings.
    """

    def __init__(self, need_top_grad: bool = True):
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape: list):
        """Shapes of inputs, outputs and auxiliary states from the input shapes.

        Parameters
        ----------
        in_shape : list of list of int
            Argument shapes in ``list_arguments`` order (``[]`` where unknown).

        Returns
        -------
        in_shape, out_shape[, aux_shape] : lists
            The default makes every output shaped like the first input.
        """
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()

    def infer_type(self, in_type: list):
        """Dtypes (NumPy types, ``None`` where unknown) of inputs, outputs, aux states.

        The default gives every output and auxiliary state the first input's dtype.
        """
        return (in_type, [in_type[0]] * len(self.list_outputs()),
                [in_type[0]] * len(self.list_auxiliary_states()))

    def infer_storage_type(self, in_stype: list):
        """Storage types; only ``'default'`` (dense) is supported by gluonlite."""
        return (["default"] * len(in_stype), ["default"] * len(self.list_outputs()),
                ["default"] * len(self.list_auxiliary_states()))

    infer_storage_type._dense_default = True  # type: ignore[attr-defined]

    def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype,
                                    aux_stype):
        """Storage types of the backward pass; everything is dense."""
        return (["default"] * len(ograd_stype), ["default"] * len(in_stype),
                ["default"] * len(out_stype), ["default"] * len(igrad_stype),
                ["default"] * len(aux_stype))

    def list_outputs(self) -> list:
        """Output names (``['output']`` by default)."""
        return ["output"]

    def list_arguments(self) -> list:
        """Argument (input) names (``['data']`` by default)."""
        return ["data"]

    def list_auxiliary_states(self) -> list:
        """Auxiliary-state names (none by default)."""
        return []

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list:
        """Ids of the arrays backward needs: head gradients (if ``need_top_grad``),
        inputs and outputs."""
        deps = []
        if self.need_top_grad_:
            deps.extend(out_grad)
        deps.extend(in_data)
        deps.extend(out_data)
        return deps

    def create_operator(self, ctx, in_shapes, in_dtypes) -> CustomOp:
        """The :class:`CustomOp` doing the computation for this context, these input
        shapes (lists, auxiliary states included) and dtypes (MXNet dtype codes)."""
        return CustomOp()


def register(reg_name: str) -> Callable[[type], type]:
    """Decorator registering a :class:`CustomOpProp` subclass as custom operator
    ``reg_name`` (a later registration under the same name replaces it)."""
    def do_register(prop_cls: type) -> type:
        register_prop(reg_name, prop_cls)
        return prop_cls
    return do_register


def get_all_registered_operators() -> list:
    """Names of every registered operator (the registry's names and aliases)."""
    return op_names()
