"""Same-shape elementwise binary operators (``elemwise_add``, ``_mod``, ``_greater``, ...),
``_grad_add``, ``add_n`` (``ElementWiseSum``) and ``where``.

The math (MXNet's integer division, ``mod`` sign rule, gradients at ties, ...)
lives in :mod:`._binary_math`, shared with the broadcasting and scalar operators.

Each operator's ``OpDef.math`` is its function's expression (over ``lhs``, ``rhs`` and
the output ``y``, as for ``broadcast_*``; the scalar operators rename them ``data`` and
``scalar``); the CUDA expressions of GPU fusion and the recorded gradients are
rendered from it.  ``where``, whose inputs are ``condition``, ``x`` and ``y``, names its
output ``out`` instead.  ``add_n`` has a variable number of inputs and no expression.
"""
from __future__ import annotations

import numpy as np

from ._binary_math import MATH, reduce_to
from .expr import graph_grad
from .attrs import Attr
from .common import elementwise_rule, fail, merge_shapes, put
from .registry import OpDef, register

__all__ = ["make_binary_op"]


def _dtype_mismatch(op, a, b):
    fail(op, f"input 'rhs' has dtype {np.dtype(b.dtype).name}, expected "
         f"{np.dtype(a.dtype).name} like the other inputs", a.shape, b.shape)


def _make_forward(op_name, m, broadcast):
    ufunc = m.ufunc
    if ufunc is not None:
        def forward(oc, attrs, inputs, out):
            a, b = inputs
            if a.dtype is not b.dtype and a.dtype != b.dtype:
                _dtype_mismatch(op_name, a, b)
            if not broadcast and a.shape != b.shape:
                fail(op_name, "inputs must have the same shape", a.shape, b.shape)
            f = getattr(oc.xp, ufunc)
            return [f(a, b) if out is None else f(a, b, out=out[0])]
        return forward
    ffwd, ifwd = m.ffwd, m.ifwd

    def forward(oc, attrs, inputs, out):
        a, b = inputs
        if a.dtype is not b.dtype and a.dtype != b.dtype:
            _dtype_mismatch(op_name, a, b)
        if not broadcast and a.shape != b.shape:
            fail(op_name, "inputs must have the same shape", a.shape, b.shape)
        fn = ffwd if a.dtype.kind == "f" else ifwd
        return [fn(oc.xp, a, b, None if out is None else out[0])]
    return forward


def _make_backward(m, broadcast):
    glhs, grhs = m.glhs, m.grhs
    if m.zero_grad:
        def backward(oc, attrs, inputs, outputs, out_grads):
            xp = oc.xp
            if inputs is None:  # same shape: every input has the output's shape
                g = out_grads[0]
                return [xp.zeros_like(g), xp.zeros_like(g)]
            return [xp.zeros_like(inputs[0]), xp.zeros_like(inputs[1])]
        return backward

    def backward(oc, attrs, inputs, outputs, out_grads):
        g = out_grads[0]
        xp = oc.xp
        a, b = inputs if inputs is not None else (None, None)
        y = outputs[0] if outputs is not None else None
        ga = glhs(xp, a, b, y, g)
        gb = grhs(xp, a, b, y, g)
        if broadcast:
            return [reduce_to(ga, a.shape), reduce_to(gb, b.shape)]
        return [ga, gb]
    return backward


def _nd_reduce_to(F, g, shape):
    """:func:`reduce_to` with ``F``'s functions (recorded, for higher-order gradients)."""
    if g is None or g.shape == tuple(shape):
        return g
    lead = len(g.shape) - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(shape)
                                      if d == 1 and g.shape[lead + i] != 1)
    r = F.sum(g, axis=axes, keepdims=True)
    return r if r.shape == tuple(shape) else r.reshape(shape)


def _make_graph(m, broadcast):
    if m.zero_grad:
        return lambda F, attrs, inputs, outputs, out_grads: [None, None]
    gl, gr = (graph_grad(d) for d in m.math.grads)
    if gl is None or gr is None:
        return None

    def graph(F, attrs, inputs, outputs, out_grads):
        a, b = inputs if inputs is not None else (None, None)
        env = {"lhs": a, "rhs": b, "y": outputs[0] if outputs is not None else None}
        g = out_grads[0]
        ga, gb = gl(F, g, env), gr(F, g, env)
        if broadcast:
            return [_nd_reduce_to(F, ga, a.shape), _nd_reduce_to(F, gb, b.shape)]
        return [ga, gb]
    return graph


def _same_shape_infer(op_name):
    def infer(attrs, in_shapes):
        shape = merge_shapes(op_name, "lhs and rhs", in_shapes[0], in_shapes[1])
        return [shape, shape], [shape]
    return elementwise_rule(infer)


def make_binary_op(name: str, math_name: str, *, broadcast: bool, infer_shape,
                   aliases=(), doc: str = "") -> OpDef:
    """Register the array-array operator ``name`` computing ``MATH[math_name]``."""
    m = MATH[math_name]
    uses = m.math.reads()
    if broadcast and "inputs" not in uses:
        uses = ("inputs",) + tuple(uses)  # the input shapes, to reduce gradients
    if m.zero_grad and not broadcast:
        uses = ()
    return register(OpDef(
        name, _make_forward(name, m, broadcast), backward=_make_backward(m, broadcast),
        inputs=("lhs", "rhs"), infer_shape=infer_shape, aliases=aliases,
        math=m.math, backward_uses=uses,
        fuse_int=m.fuse_int, fuse_shape="broadcast" if broadcast else "same",
        backward_graph=_make_graph(m, broadcast), doc=doc))


# name, math, aliases (MXNet 1.9's, ``_npi_*`` left out)
_ELEMWISE = [
    ("elemwise_add", "add", ("_add", "_plus", "_Plus", "_sparse_elemwise_add")),
    ("elemwise_sub", "sub", ("_sub", "_minus", "_Minus", "_sparse_elemwise_sub")),
    ("elemwise_mul", "mul", ("_mul", "_Mul", "_sparse_elemwise_mul")),
    ("elemwise_div", "div", ("_div", "_Div", "_sparse_elemwise_div")),
    ("_grad_add", "add", ()),
    ("_mod", "mod", ("_Mod",)),
    ("_power", "power", ("_Power",)),
    ("_maximum", "maximum", ("_Maximum",)),
    ("_minimum", "minimum", ("_Minimum",)),
    ("_hypot", "hypot", ("_Hypot",)),
    ("_equal", "equal", ("_Equal",)),
    ("_not_equal", "not_equal", ("_Not_Equal",)),
    ("_greater", "greater", ("_Greater",)),
    ("_greater_equal", "greater_equal", ("_Greater_Equal",)),
    ("_lesser", "lesser", ("_Lesser",)),
    ("_lesser_equal", "lesser_equal", ("_Lesser_Equal",)),
    ("_logical_and", "logical_and", ("_Logical_And",)),
    ("_logical_or", "logical_or", ("_Logical_Or",)),
    ("_logical_xor", "logical_xor", ("_Logical_Xor",)),
]

for _name, _math, _aliases in _ELEMWISE:
    make_binary_op(_name, _math, broadcast=False, infer_shape=_same_shape_infer(_name),
                   aliases=_aliases,
                   doc=f"Elementwise ``{_math}`` of two arrays of the same shape "
                       f"(MXNet ``{_name}``).")


# -- add_n ------------------------------------------------------------------------------
def _add_n_inputs(attrs):
    return tuple(f"arg{i}" for i in range(attrs.num_args))


def _add_n_forward(oc, attrs, inputs, out):
    first = inputs[0]
    for i, x in enumerate(inputs[1:], 1):
        if x.shape != first.shape:
            fail("add_n", f"input {i} has shape {tuple(x.shape)}, expected "
                 f"{tuple(first.shape)}", *[v.shape for v in inputs])
        if x.dtype != first.dtype:
            fail("add_n", f"input {i} has dtype {np.dtype(x.dtype).name}, expected "
                 f"{np.dtype(first.dtype).name}")
    xp = oc.xp
    if len(inputs) == 1:
        return [put(out, 0, first.copy() if out is None else first)]
    if out is not None and len(inputs) > 2:
        # partial sums in a temporary, the last addition into out: out may be one of the
        # summands (an in-place plan), so it is written only by that elementwise pass
        acc = xp.add(inputs[0], inputs[1])
        for x in inputs[2:-1]:
            xp.add(acc, x, out=acc)
        return [xp.add(acc, inputs[-1], out=out[0])]
    acc = xp.add(inputs[0], inputs[1]) if out is None else xp.add(inputs[0], inputs[1],
                                                                 out=out[0])
    for x in inputs[2:]:
        xp.add(acc, x, out=acc)
    return [acc]


def _add_n_backward(oc, attrs, inputs, outputs, out_grads):
    g = out_grads[0]
    return [g] * attrs.num_args


def _add_n_graph(F, attrs, inputs, outputs, out_grads):
    return [out_grads[0]] * attrs.num_args


def _add_n_infer(attrs, in_shapes):
    shape = None
    for s in in_shapes:
        shape = merge_shapes("add_n", "inputs", shape, s)
    return [shape] * len(in_shapes), [shape]


register(OpDef(
    "add_n", _add_n_forward, backward=_add_n_backward, attrs={"num_args": Attr("int")},
    inputs=_add_n_inputs, key_var_num_args="num_args", infer_shape=_add_n_infer,
    aliases=("ElementWiseSum", "_sparse_ElementWiseSum", "_sparse_add_n"),
    backward_uses=(), backward_graph=_add_n_graph,
    doc="Sum of all inputs, which share one shape and dtype (MXNet ``add_n``)."))


# -- where ------------------------------------------------------------------------------
def _where_mask(c, x):
    """``condition != 0`` shaped to broadcast against ``x``; checks the shapes."""
    if c.shape != x.shape:
        if c.ndim != 1 or not x.ndim or c.shape[0] != x.shape[0]:
            fail("where", "condition must have the shape of x, or be 1-D with x's first "
                 "dimension", c.shape, x.shape)
        c = c.reshape(c.shape + (1,) * (x.ndim - 1))
    return c != 0


def _where_forward(oc, attrs, inputs, out):
    c, x, y = inputs
    if x.shape != y.shape:
        fail("where", "x and y must have the same shape", c.shape, x.shape, y.shape)
    if x.dtype != y.dtype:
        fail("where", f"x has dtype {np.dtype(x.dtype).name} but y has "
             f"{np.dtype(y.dtype).name}")
    return [put(out, 0, oc.xp.where(_where_mask(c, x), x, y))]


def _where_backward(oc, attrs, inputs, outputs, out_grads):
    c, x, _ = inputs
    g = out_grads[0]
    xp = oc.xp
    mask = _where_mask(c, x)
    zero = xp.zeros((), dtype=g.dtype)
    return [xp.zeros_like(c), xp.where(mask, g, zero), xp.where(mask, zero, g)]


def _where_graph(F, attrs, inputs, outputs, out_grads):
    c = inputs[0]
    g = out_grads[0]
    zero = g * 0
    return [None, F.where(c, g, zero), F.where(c, zero, g)]


def _where_infer(attrs, in_shapes):
    c, x, y = in_shapes
    if c is None or min(c, default=1) <= 0:
        return [c, x, y], [None]  # MXNet infers nothing until the condition is known
    xy = merge_shapes("where", "x and y", x, y)
    if c is not None and xy is not None and tuple(c) != tuple(xy):
        if len(c) == 1 and len(xy) >= 1 and (not c[0] or not xy[0] or c[0] == xy[0]):
            c = (c[0] or xy[0],)
            xy = (xy[0] or c[0],) + tuple(xy[1:])
        else:
            c = merge_shapes("where", "condition and x", c, xy)
    elif xy is None and c is not None and len(c) > 1:
        xy = tuple(c)
    return [c, xy, xy], [xy]


def _where_infer_type(op, attrs, in_dtypes):
    c, x, y = in_dtypes
    if x is not None and y is not None and np.dtype(x) != np.dtype(y):
        fail("where", f"x has dtype {np.dtype(x).name} but y has {np.dtype(y).name}")
    d = x if x is not None else y
    return [c, d, d], [d]


register(OpDef(
    "where", _where_forward, backward=_where_backward, inputs=("condition", "x", "y"),
    infer_shape=_where_infer, infer_type=_where_infer_type, aliases=("_sparse_where",),
    cuda="out = (condition != 0) ? x : y", cuda_grad=("0", "condition != 0 ? 1 : 0",
                                                      "condition != 0 ? 0 : 1"),
    # not elementwise: a 1-D condition selects along x's first axis
    elementwise=False, fuse_int=True, fuse_shape="where",
    backward_uses=("inputs",), backward_graph=_where_graph,
    doc="Elements of x where condition is non-zero, else of y; a 1-D condition selects "
        "along x's first axis (MXNet ``where``)."))
