"""``CustomOp``, ``CustomOpProp``, ``register`` and the runtime of the ``Custom``
operator: the operator's definition (structure, inference) is in the registry
(``gluonlite/ops/custom.py``); this module wraps the raw arrays as NDArrays, pauses the
tape, calls the user's operator, and installs itself into that definition when it loads
(:func:`~gluonlite.ops.custom.use_runtime`)."""
from __future__ import annotations

from collections import namedtuple
from typing import Callable

import numpy as np

from ..autograd import _RecordingScope
from ..base import MXNetError
from ..ndarray.ndarray import NDArray
from ..ndarray.serialization import FLAG_BY_DTYPE
from ..ops.arguments import operator_arguments
from ..ops.custom import check_signature, register_prop, use_runtime, user_error
from ..ops.registry import get_op, op_names
from ..profiler import custom_operator_scope

__all__ = ["CustomOp", "CustomOpProp", "register", "get_all_registered_operators",
           "OperatorArguments", "get_operator_arguments"]


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


OperatorArguments = namedtuple("OperatorArguments", ["narg", "names", "types"])


def get_operator_arguments(op_name: str) -> OperatorArguments:
    """An operator's arguments as MXNet documents them: array inputs, then parameters.

    Parameters
    ----------
    op_name : str
        A registered operator name (``"Activation"``, ``"broadcast_add"``).

    Returns
    -------
    OperatorArguments
        ``(narg, names, types)``; ``types`` holds MXNet's type strings
        (``"NDArray-or-Symbol"``, ``"int, required"``, ``"boolean, optional, default=0"``).
    """
    names, types = operator_arguments(get_op(op_name))
    return OperatorArguments(narg=len(names), names=names, types=types)


# -- the runtime of the ``Custom`` operator ------------------------------------------------
class _Plan:
    """What one input signature (context, shapes, dtypes) needs; computed once."""

    __slots__ = ("out_shapes", "out_dtypes", "shape_lists", "dtype_flags")

    def __init__(self, out_shapes, out_dtypes, shape_lists, dtype_flags):
        self.out_shapes = out_shapes
        self.out_dtypes = out_dtypes
        self.shape_lists = shape_lists
        self.dtype_flags = dtype_flags


def _make_plan(st, attrs, shapes, dtypes) -> _Plan:
    out_shapes, out_dtypes = check_signature(st, attrs, shapes, dtypes)
    flags = [FLAG_BY_DTYPE.get(np.dtype(d), -1) for d in dtypes]
    return _Plan(out_shapes, out_dtypes, [list(s) for s in shapes], flags)


def _wrap_all(arrays, ctx):
    return [NDArray(a, ctx) for a in arrays]


def _forward(oc, attrs, inputs, out, keep_state=False):
    st = attrs.state
    ctx = oc.ctx
    shapes = tuple(tuple(x.shape) for x in inputs)
    dtypes = tuple(x.dtype for x in inputs)
    key = (ctx, shapes, dtypes)
    plan = st.plans.get(key)
    if plan is None:
        plan = st.plans[key] = _make_plan(st, attrs, shapes, dtypes)
    xp = oc.xp
    if out is None:
        outs = [xp.zeros(s, dtype=d) for s, d in zip(plan.out_shapes, plan.out_dtypes)]
    else:
        outs = list(out)
    try:
        operator = st.prop.create_operator(ctx, plan.shape_lists, plan.dtype_flags)
    except MXNetError:
        raise
    except Exception as err:  # noqa: BLE001 - user code
        raise user_error(st, "create_operator", err) from err
    n_args = st.n_args
    in_nd = _wrap_all(inputs, ctx)
    out_nd = _wrap_all(outs, ctx)
    is_train = bool(oc.is_train)
    with _RecordingScope(False, is_train), custom_operator_scope(st.op_type):
        try:
            operator.forward(is_train=int(is_train), req=["write"] * len(outs),
                             in_data=in_nd[:n_args], out_data=out_nd, aux=in_nd[n_args:])
        except MXNetError:
            raise
        except Exception as err:  # noqa: BLE001 - user code
            raise user_error(st, "forward", err) from err
    # the state of the call: the operator instance, for its backward
    return (outs, operator) if keep_state else outs


def _backward(oc, attrs, inputs, outputs, out_grads, state=None):
    st = attrs.state
    ctx = oc.ctx
    operator = state
    if operator is None:  # no forward state handed over (a direct call)
        key = (ctx, tuple(tuple(x.shape) for x in inputs), tuple(x.dtype for x in inputs))
        plan = st.plans.get(key) or _make_plan(st, attrs, key[1], key[2])
        operator = st.prop.create_operator(ctx, plan.shape_lists, plan.dtype_flags)
    xp = oc.xp
    n_args = st.n_args
    if ctx.device_typeid == 2:
        with xp.cuda.Device(ctx.device_id):
            in_grads = [xp.zeros(x.shape, dtype=x.dtype) for x in inputs[:n_args]]
    else:
        in_grads = [xp.zeros(x.shape, dtype=x.dtype) for x in inputs[:n_args]]
    in_nd = _wrap_all(inputs, ctx)
    with _RecordingScope(False, None), custom_operator_scope(st.op_type, backward=True):
        try:
            operator.backward(req=["write"] * n_args, out_grad=_wrap_all(out_grads, ctx),
                              in_data=in_nd[:n_args], out_data=_wrap_all(outputs or [], ctx),
                              in_grad=_wrap_all(in_grads, ctx), aux=in_nd[n_args:])
        except MXNetError:
            raise
        except Exception as err:  # noqa: BLE001 - user code
            raise user_error(st, "backward", err) from err
    return in_grads + [None] * len(st.aux_names)


use_runtime(_forward, _backward)
