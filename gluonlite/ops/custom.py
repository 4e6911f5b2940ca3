"""The ``Custom`` operator: runs a user's Python operator (``mx.operator.CustomOp``).

The user registers a ``CustomOpProp`` subclass under a name (``op_type``) with
``mx.operator.register``.  Each parse of ``Custom``'s attributes makes one
property instance from the keyword arguments (as strings, like MXNet); the
property gives the input, output and auxiliary-state names, shape and dtype
inference, and ``create_operator``, whose result does the arithmetic on NDArrays.

This module is the operator's definition: structure, inference and the per-node
property.  Running the user's ``CustomOp`` needs arrays and the tape (layers above
``ops/``), so that runtime lives with ``mx.operator`` (``gluonlite/operator/custom.py``),
which installs it here with :func:`use_runtime` when it loads.

Lifetime, as in MXNet: an imperative ``nd.Custom`` call parses its attributes,
so it gets a fresh property and a fresh operator; a graph node keeps its parsed
attributes, so its property lives as long as the node.  ``create_operator`` is
called once per forward call (MXNet does the same imperatively and in hybridized
blocks); the backward of a call runs on the operator instance of that call's
forward, which the forward hands over as the call's saved state
(``OpDef.saved_state``).  A backward without it (a direct call of the operator's
backward) runs on a fresh operator.
"""
from __future__ import annotations

import logging

import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .registry import OpAttrs, OpDef, register

__all__ = ["register_prop", "find_prop", "registered_props", "check_signature", "user_error",
           "use_runtime", "CUSTOM"]

_PROPS: dict[str, type] = {}
_log = logging.getLogger("gluonlite.operator")

# How the op's aux inputs are reported by ``OpDef.aux_names`` (only its truth value
# is used generically; ``aux_indices`` gives the positions per call).
_AUX_MARKER = ("<CustomOpProp.list_auxiliary_states>",)


def register_prop(reg_name: str, prop_cls: type) -> None:
    """Register ``prop_cls`` (a ``CustomOpProp`` subclass) as custom operator ``reg_name``."""
    if reg_name in _PROPS and _PROPS[reg_name] is not prop_cls:
        _log.warning("New registration is overriding existing custom operator %s", reg_name)
    _PROPS[reg_name] = prop_cls


def find_prop(reg_name: str) -> type | None:
    """The property class registered as ``reg_name``, or ``None``."""
    return _PROPS.get(reg_name)


def registered_props() -> list[str]:
    """Names of all registered custom operators."""
    return list(_PROPS)


class _CustomAttrs(OpAttrs):
    """Parsed ``Custom`` attributes plus the per-node state (kept out of ``as_dict``).

    Copies and pickles re-parse the attribute strings: a copy owns a new property
    instance, as a graph node loaded from JSON would.
    """

    __slots__ = ("state",)

    def __reduce__(self):
        return (_reparse, (dict(self._given),))

    def __copy__(self):
        return _reparse(dict(self._given))

    def __deepcopy__(self, memo):
        return _reparse(dict(self._given))


def _reparse(given: dict) -> OpAttrs:
    return CUSTOM.parse_attrs(given)


class _State:
    """One property instance with its names and inference plans."""

    __slots__ = ("op_type", "prop", "arg_names", "aux_names", "out_names", "n_args",
                 "plans")

    def __init__(self, op_type: str, prop):
        self.op_type = op_type
        self.prop = prop
        self.arg_names = tuple(prop.list_arguments())
        self.aux_names = tuple(prop.list_auxiliary_states())
        self.out_names = tuple(prop.list_outputs())
        self.n_args = len(self.arg_names)
        self.plans: dict = {}


# -- structure ------------------------------------------------------------------------
def _input_names(attrs):
    st = attrs.state
    return st.arg_names + st.aux_names


def _num_outputs(attrs):
    return len(attrs.state.out_names)


def _output_names(attrs):
    return attrs.state.out_names


# -- inference -----------------------------------------------------------------------
def user_error(st: _State, what: str, err: Exception) -> MXNetError:
    return MXNetError(f"Operator Custom (op_type '{st.op_type}'): error in "
                      f"{type(st.prop).__name__}.{what}: {type(err).__name__}: {err}")


def _split_result(st: _State, what: str, res, n_out: int) -> tuple:
    """``(ins, outs, auxs)`` from a user inference result of 2 or 3 lists; checks counts."""
    try:
        parts = list(res)
    except TypeError as err:
        raise user_error(st, what, err) from err
    if len(parts) not in (2, 3):
        raise MXNetError(f"Operator Custom (op_type '{st.op_type}'): {what} must return "
                         f"(in, out) or (in, out, aux) lists, got {len(parts)} items")
    ins, outs = list(parts[0]), list(parts[1])
    auxs = list(parts[2]) if len(parts) == 3 else []
    if len(outs) != n_out:
        raise MXNetError(f"Operator Custom (op_type '{st.op_type}'): {what} returned "
                         f"{len(outs)} output entries, expected {n_out} "
                         f"(list_outputs {list(st.out_names)})")
    if len(ins) != st.n_args:
        raise MXNetError(f"Operator Custom (op_type '{st.op_type}'): {what} returned "
                         f"{len(ins)} input entries, expected {st.n_args} "
                         f"(list_arguments {list(st.arg_names)})")
    if len(auxs) != len(st.aux_names):  # MXNet insists on every aux entry too
        raise MXNetError(f"Operator Custom (op_type '{st.op_type}'): {what} returned "
                         f"{len(auxs)} auxiliary entries, expected {len(st.aux_names)} "
                         f"(list_auxiliary_states {list(st.aux_names)})")
    return ins, outs, auxs


def _to_shape(s):
    if s is None:
        return None
    s = tuple(int(d) for d in s)
    return s if s else None  # MXNet's unknown shape is the empty one


def _infer_shape(attrs, in_shapes):
    st = attrs.state
    n_args = st.n_args
    n_out = len(st.out_names)
    args = in_shapes[:n_args]
    complete = all(s is not None and 0 not in s for s in args)
    try:
        res = st.prop.infer_shape([list(s) if s is not None else [] for s in args])
    except Exception as err:  # noqa: BLE001 - user code
        if not complete:  # user code that needs the unknown shapes: nothing to infer yet
            return list(in_shapes), [None] * n_out
        raise user_error(st, "infer_shape", err) from err
    ins, outs, auxs = _split_result(st, "infer_shape", res, n_out)
    new_in = [_to_shape(s) for s in ins]
    new_in = [n if n is not None else g for n, g in zip(new_in, args)]
    aux_in = list(in_shapes[n_args:])
    for i, s in enumerate(auxs):
        s = _to_shape(s)
        if s is not None:
            aux_in[i] = s
    return new_in + aux_in, [_to_shape(s) for s in outs]


def _to_dtype(t):
    return None if t is None else np.dtype(t)


def _infer_type(op, attrs, in_dtypes):
    st = attrs.state
    n_args = st.n_args
    n_out = len(st.out_names)
    args = in_dtypes[:n_args]
    complete = all(d is not None for d in args)
    try:
        res = st.prop.infer_type([None if d is None else np.dtype(d).type for d in args])
    except Exception as err:  # noqa: BLE001 - user code
        if not complete:
            return list(in_dtypes), [None] * n_out
        raise user_error(st, "infer_type", err) from err
    ins, outs, auxs = _split_result(st, "infer_type", res, n_out)
    try:
        new_in = [_to_dtype(t) if t is not None else g for t, g in zip(ins, args)]
        aux_in = list(in_dtypes[n_args:])
        for i, t in enumerate(auxs):
            if t is not None:
                aux_in[i] = _to_dtype(t)
        return new_in + aux_in, [_to_dtype(t) for t in outs]
    except TypeError as err:
        raise user_error(st, "infer_type", err) from err


def _check_storage(st: _State) -> None:
    """Only dense storage exists here; a property asking for sparse outputs is refused."""
    if getattr(type(st.prop).infer_storage_type, "_dense_default", False):
        return  # the base class's rule: everything dense
    res = st.prop.infer_storage_type(["default"] * st.n_args)
    for group in res:
        for stype in group:
            if stype not in ("default", None):
                raise MXNetError(f"Operator Custom (op_type '{st.op_type}'): storage type "
                                 f"'{stype}' is not supported; only dense ('default') arrays")


def check_signature(st: _State, attrs, shapes, dtypes) -> tuple[list, list]:
    """Output shapes and dtypes for one call signature (input shapes and dtypes), after
    checking the inputs against the property's inference; ``MXNetError`` otherwise."""
    in_shapes, out_shapes = _infer_shape(attrs, list(shapes))
    names = st.arg_names + st.aux_names
    for name, got, want in zip(names, shapes, in_shapes):
        if want is not None and tuple(want) != tuple(got):
            raise MXNetError(f"Operator Custom (op_type '{st.op_type}'): input '{name}' has "
                             f"shape {tuple(got)} but infer_shape expects {tuple(want)}")
    for name, s in zip(st.out_names, out_shapes):
        if s is None or 0 in s:
            raise MXNetError(f"Operator Custom (op_type '{st.op_type}'): infer_shape left "
                             f"output '{name}' unknown for input shapes {list(shapes)}")
    in_dtypes, out_dtypes = _infer_type(None, attrs, list(dtypes))
    for name, got, want in zip(names, dtypes, in_dtypes):
        if want is not None and want != got:
            raise MXNetError(f"Operator Custom (op_type '{st.op_type}'): input '{name}' has "
                             f"dtype {got} but infer_type expects {want}")
    for name, d in zip(st.out_names, out_dtypes):
        if d is None:
            raise MXNetError(f"Operator Custom (op_type '{st.op_type}'): infer_type left "
                             f"output '{name}' unknown for input dtypes {list(dtypes)}")
    _check_storage(st)
    return out_shapes, out_dtypes


# -- running the user's operator: lent by the front end ------------------------------------
def _no_runtime(*args, **kwargs):
    raise MXNetError("Operator Custom: the custom-operator runtime is gluonlite.operator "
                     "(mx.operator); import gluonlite before calling a custom operator")


def use_runtime(forward, backward) -> None:
    """Install the runtime that calls the user's ``CustomOp`` (``mx.operator`` does, when
    it loads): ``forward``/``backward`` with the signatures of an ``OpDef``'s, the
    forward a ``saved_state`` one (it hands its operator instance to the backward)."""
    CUSTOM.forward = forward
    CUSTOM.backward = backward


class CustomOpDef(OpDef):
    """``Custom``: input, output and aux names come from the registered property.

    Attributes are parsed anew on every call (never cached), since each parse makes
    the property instance that a call or a graph node owns.
    """

    def parse_attrs(self, kwargs: dict | None) -> OpAttrs:
        parsed = self._parse(dict(kwargs or {}))
        op_type = parsed.op_type
        prop_cls = _PROPS.get(op_type)
        if prop_cls is None:
            raise MXNetError(f"Operator Custom: Cannot find custom operator {op_type} "
                             f"(register a CustomOpProp with mx.operator.register"
                             f"('{op_type}'))")
        params = {k: v for k, v in parsed._given.items() if k != "op_type"}
        try:
            prop = prop_cls(**params)
        except MXNetError:
            raise
        except Exception as err:  # noqa: BLE001 - user code
            raise MXNetError(f"Operator Custom (op_type '{op_type}'): creating "
                             f"{prop_cls.__name__}({', '.join(params)}) failed: "
                             f"{type(err).__name__}: {err}") from err
        attrs = _CustomAttrs(parsed.as_dict(), parsed._given)
        attrs.state = _State(op_type, prop)
        return attrs

    def aux_indices(self, attrs: OpAttrs) -> tuple:
        st = attrs.state
        return tuple(range(st.n_args, st.n_args + len(st.aux_names)))


_DOC = """Apply a custom operator implemented in Python (``mx.operator.CustomOp``).

Parameters
----------
*data : NDArray or Symbol
    The inputs, in the order of the property's ``list_arguments()`` followed by
    ``list_auxiliary_states()``.
op_type : str
    Name the ``CustomOpProp`` subclass was registered under with
    ``mx.operator.register``.
**kwargs
    Passed to the property's ``__init__`` as strings.
"""

CUSTOM = register(CustomOpDef(
    "Custom", _no_runtime, backward=_no_runtime,
    attrs={"op_type": Attr("str")},
    inputs=_input_names, num_outputs=_num_outputs, output_names=_output_names,
    infer_shape=_infer_shape, infer_type=_infer_type,
    open_attrs=True, saved_state=True, capturable=False, doc=_DOC))
CUSTOM.aux_names = _AUX_MARKER
