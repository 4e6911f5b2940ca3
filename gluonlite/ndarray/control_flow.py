"""Imperative control flow of ``mx.nd.contrib``: ``foreach``, ``while_loop`` and ``cond``,
with MXNet 1.9's semantics (nested lists of NDArrays as data, states and outputs; the
loop is plain Python over NDArray operations, so autograd records every step).

In hybridized graphs (``F`` = ``mx.sym``) MXNet builds ``_foreach``/``_while_loop``/
``_cond`` nodes with subgraphs; gluonlite's symbol API does not have them yet and
``mx.sym.contrib.foreach`` & co. raise ``MXNetError`` saying so.
"""
from __future__ import annotations

from .ndarray import NDArray, empty

__all__ = ["foreach", "while_loop", "cond"]


def _flatten(obj, what: str, leaf: type = NDArray) -> tuple:
    """``(list of leaves, format)``: a nested list/tuple of ``leaf`` objects (NDArrays;
    ``sym.contrib`` passes ``Symbol``) flattened; the format rebuilds it (an int: that
    many leaves of a list, -1: one bare leaf)."""
    if obj is None:
        return [], 0
    if isinstance(obj, leaf):
        return [obj], -1
    if not isinstance(obj, (list, tuple)):
        raise AssertionError(f"{what} should be a(n) {leaf.__name__} or a nested list of "
                             f"them, got {type(obj).__name__}")
    flat, fmts = [], []
    for x in obj:
        f, fmt = _flatten(x, what, leaf)
        flat.extend(f)
        fmts.append(fmt)
    return flat, fmts


def _regroup(flat: list, fmt) -> tuple:
    """Inverse of :func:`_flatten`: ``(nested object, leaves not used)``."""
    if fmt == -1:
        return flat[0], flat[1:]
    if isinstance(fmt, int):
        return flat[:fmt], flat[fmt:]
    out = []
    for f in fmt:
        obj, flat = _regroup(flat, f)
        out.append(obj)
    return out, flat


def foreach(body, data, init_states):
    """Run ``body(data_slice, states) -> (outputs, new_states)`` over the first axis of
    ``data``; returns the outputs stacked along a new first axis and the last states."""
    flat_data, _ = _flatten(data, "data")
    _flatten(init_states, "init_states")
    if not flat_data:
        raise AssertionError("data should be an NDArray or a nested list of NDArrays")
    single = isinstance(data, NDArray)
    n_iters = flat_data[0].shape[0]
    states = init_states
    steps, out_fmt = [], None
    for i in range(n_iters):
        element = data[i] if single else [d[i] for d in data]
        outs, states = body(element, states)
        outs, out_fmt = _flatten(outs, "foreach output")
        steps.append(outs)
    from . import stack
    stacked = [stack(*column, axis=0) for column in zip(*steps)]
    if out_fmt is None:
        return [], states
    outputs, _ = _regroup(stacked, out_fmt)
    return outputs, states


def _scalar(value, type_, name: str):
    if isinstance(value, NDArray):
        value = value.asscalar()
    try:
        return type_(value)
    except (TypeError, ValueError) as err:
        raise ValueError(f"Cannot convert {name} to python {type_.__name__}") from err


def while_loop(cond, func, loop_vars, max_iterations=None):
    """Run ``func(*loop_vars) -> (step_outputs, new_loop_vars)`` while
    ``cond(*loop_vars)`` holds, at most ``max_iterations`` times.  Step outputs are
    stacked along a new first axis and padded to ``max_iterations`` rows (the padding is
    uninitialized, as in MXNet); returns ``(outputs, loop_vars)``."""
    if max_iterations is None:
        raise ValueError("max_iterations should be specified")
    max_iterations = _scalar(max_iterations, int, "max_iteration")
    single = isinstance(loop_vars, NDArray)
    loop_vars = [loop_vars] if single else list(loop_vars)
    if not loop_vars:
        raise ValueError("loop_vars should contain at least one element")
    steps, out_fmt = [], None
    while len(steps) < max_iterations and _scalar(cond(*loop_vars), bool,
                                                  "Return value of cond"):
        step_output, new_vars = func(*loop_vars)
        new_vars = [] if new_vars is None else new_vars
        new_vars = [new_vars] if isinstance(new_vars, NDArray) else list(new_vars)
        if len(new_vars) != len(loop_vars):
            raise ValueError("The length of loop_vars should be consistent during the loop")
        loop_vars = new_vars
        flat, out_fmt = _flatten([] if step_output is None else step_output, "while output")
        if steps and len(flat) != len(steps[0]):
            raise ValueError("Number of elements in step_output should be the same in each "
                             "step")
        steps.append(flat)
    from . import concat
    stacked = []
    for i, items in enumerate(zip(*steps), 1):
        items = [x.expand_dims(0) for x in items]
        if len(steps) != max_iterations:
            items.append(empty((max_iterations - len(steps),) + tuple(items[0].shape[1:]),
                               ctx=items[0].context, dtype=items[0].dtype))
        shapes = {tuple(x.shape[1:]) for x in items}
        if len(shapes) > 1:
            raise ValueError(f"Shapes of {i}-th elements in step_outputs are inconsistent: "
                             f"{[tuple(x.shape) for x in items]}")
        stacked.append(concat(*items, dim=0))
    if out_fmt is not None:
        stacked, _ = _regroup(stacked, out_fmt)
    return stacked, (loop_vars[0] if single else loop_vars)


def cond(pred, then_func, else_func):
    """``then_func()`` if the scalar ``pred`` is true, else ``else_func()``."""
    branch = then_func if _scalar(pred, bool, "pred") else else_func
    return branch()
