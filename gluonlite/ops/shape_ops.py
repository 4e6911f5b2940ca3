"""Shape manipulation that moves no values: ``Reshape``, ``Flatten``, ``expand_dims``,
``squeeze``, ``reshape_like``, ``transpose``, ``SwapAxis``, ``depth_to_space``,
``space_to_depth``, ``shape_array`` and ``size_array``.

Every forward returns a fresh array (never a view of the input); the gradient of a
pure reshape is the head gradient reshaped back.  Reshape's special codes come from
:func:`gluonlite.ops.shape_codes.reshape_shape`.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, known, norm_axis, put
from .registry import OpDef, register
from . import _visual
from .shape_codes import reshape_shape


def _prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _copy_reshaped(xp, x, shape):
    return xp.array(x.reshape(shape), copy=True)


def _reshape_bwd(oc, attrs, inputs, outputs, out_grads):
    return [out_grads[0].reshape(inputs[0].shape)]


def _register_reshaper(name, target, attrs=None, aliases=(), doc="", inputs=("data",),
                       infer_type=None, plot_style=None, listed_inputs=True):
    """Register an operator whose output is input 0 reshaped to ``target(attrs, shapes)``."""
    def forward(oc, attrs_, ins, out):
        shape = target(attrs_, [a.shape for a in ins])
        return [put(out, 0, _copy_reshaped(oc.xp, ins[0], shape))]

    def backward(oc, attrs_, ins, outputs, out_grads):
        grads = [out_grads[0].reshape(ins[0].shape)]
        grads += [None] * (len(ins) - 1)
        return grads

    def infer(attrs_, in_shapes, out_shapes):
        if any(s is None for s in in_shapes):
            return in_shapes, [None]
        shapes = [tuple(s) for s in in_shapes]
        src, out = shapes[0], out_shapes[0]
        if out is not None and known(out) and src.count(0) == 1:
            # back from a known output: the one unknown input dimension holds the rest
            # of the output's size (MXNet's reverse inference, e.g. a weight of unknown
            # input size flattened into _rnn_param_concat)
            rest = _prod(d for d in src if d)
            if _prod(out) % rest:
                fail(name, f"cannot reshape into {tuple(out)}", src)
            shapes[0] = tuple(d or _prod(out) // rest for d in src)
        return shapes, [target(attrs_, shapes, partial=not all(known(s) for s in shapes))]

    def graph(F, attrs_, ins, outputs, out_grads):
        return [out_grads[0].reshape(ins[0].shape)] + [None] * (len(ins) - 1)

    register(OpDef(name, forward, backward=backward, attrs=attrs or {}, aliases=aliases,
                   infer_shape=infer, inputs=inputs, backward_uses=("inputs",),
                   backward_graph=graph, doc=doc, infer_shape_outputs=True,
                   plot_style=plot_style, listed_inputs=listed_inputs,
                   **({"infer_type": infer_type} if infer_type else {})))


# -- Reshape --------------------------------------------------------------------------
def _legacy_target(attrs, src):
    tgt = list(attrs.target_shape)
    if attrs.keep_highest:
        tgt = [src[0]] + tgt[1:]
    if any(d < 0 for d in tgt) or sum(1 for d in tgt if d == 0) > 1:
        fail("Reshape", f"invalid target_shape {attrs.target_shape}", src)
    total = _prod(src)
    if 0 in tgt:
        rest = _prod(d for d in tgt if d)
        if rest == 0 or total % rest:
            fail("Reshape", f"cannot reshape into target_shape {attrs.target_shape}", src)
        tgt[tgt.index(0)] = total // rest
    if _prod(tgt) != total:
        fail("Reshape", f"cannot reshape into target_shape {attrs.target_shape}", src)
    return tuple(tgt)


def _reshape_target(attrs, shapes, partial=False):
    src = tuple(shapes[0])
    if attrs.target_shape and not attrs.shape:
        if partial:
            return None
        return _legacy_target(attrs, src)
    return reshape_shape(src, attrs.shape, attrs.reverse, op="Reshape", allow_unknown=partial)


_register_reshaper(
    "Reshape", _reshape_target, listed_inputs=False,
    attrs={"shape": Attr("shape", ()), "reverse": Attr("bool", False),
           "target_shape": Attr("shape", ()), "keep_highest": Attr("bool", False)},
    aliases=("reshape",), plot_style=_visual.family("shape"),
    doc="Reshape with MXNet's special codes 0, -1, -2, -3, -4 and ``reverse``.")


def _flatten_target(attrs, shapes, partial=False):
    s = tuple(shapes[0])
    if not s:
        return (1, 1)
    if partial and not known(s):
        return None  # MXNet's Flatten infers its output from a complete input only
    return (s[0], _prod(s[1:]))


_register_reshaper("Flatten", _flatten_target, aliases=("flatten",), listed_inputs=False,
                   plot_style=_visual.family("shape"), doc="Collapse every axis after the first: (N, d1, d2, ...) -> (N, d1*d2*...).")


def _expand_target(attrs, shapes, partial=False):
    s = tuple(shapes[0])
    nd = len(s)
    a = attrs.axis
    if not -nd - 1 <= a <= nd:
        fail("expand_dims", f"axis must be in the range [{-nd - 1}, {nd}] ({a} provided)", s)
    a = a % (nd + 1)
    return s[:a] + (1,) + s[a:]


_register_reshaper("expand_dims", _expand_target, attrs={"axis": Attr("int")},
                   listed_inputs=False,
                   doc="Insert a new axis of size 1 at ``axis``.")


def _squeeze_target(attrs, shapes, partial=False):
    s = tuple(shapes[0])
    if attrs.axis is None:
        out = tuple(d for d in s if d != 1)
    else:
        axes = {norm_axis("squeeze", a, len(s)) for a in attrs.axis}
        for a in axes:
            if s[a] != 1 and not (partial and s[a] == 0):
                fail("squeeze", f"cannot squeeze out axis {a} of size {s[a]} (not 1)", s)
        out = tuple(d for i, d in enumerate(s) if i not in axes)
    return out or (1,)


_register_reshaper("squeeze", _squeeze_target, attrs={"axis": Attr("shape", None)},
                   doc="Remove axes of size 1 (all of them when ``axis`` is None).")


def _reshape_like_target(attrs, shapes, partial=False):
    lhs, rhs = tuple(shapes[0]), tuple(shapes[1])

    def span(n, begin, end):
        b = 0 if begin is None else norm_axis("reshape_like", begin, n)
        e = n if end is None else (end % n if end < 0 else end)
        if e > n or b > e:
            fail("reshape_like", f"invalid range [{begin}, {end}) for {n} dims", lhs, rhs)
        return b, e

    lb, le = span(len(lhs), attrs.lhs_begin, attrs.lhs_end)
    rb, re_ = span(len(rhs), attrs.rhs_begin, attrs.rhs_end)
    out = lhs[:lb] + rhs[rb:re_] + lhs[le:]
    if _prod(lhs[lb:le]) != _prod(rhs[rb:re_]) and not partial:
        fail("reshape_like", f"cannot reshape lhs {lhs} with the dims {rhs[rb:re_]} of rhs",
             lhs, rhs)
    return out


def _lhs_type(op, attrs, dtypes):
    """MXNet's ``reshape_like`` ties the output's dtype to lhs only: rhs gives just its
    shape, so it may have any dtype (GluonNLP's BERT passes int32 positions)."""
    lhs = dtypes[0]
    return [lhs, dtypes[1]], [lhs]


_register_reshaper(
    "reshape_like", _reshape_like_target, inputs=("lhs", "rhs"), infer_type=_lhs_type,
    attrs={"lhs_begin": Attr("int", None), "lhs_end": Attr("int", None),
           "rhs_begin": Attr("int", None), "rhs_end": Attr("int", None)},
    doc="Reshape lhs[lhs_begin:lhs_end] to the dims rhs[rhs_begin:rhs_end].")


# -- transpose / SwapAxis ------------------------------------------------------------------
def _perm(attrs, ndim, shape):
    if not attrs.axes:
        return tuple(range(ndim))[::-1]
    axes = tuple(attrs.axes)
    if len(axes) != ndim:
        fail("transpose", f"axes {axes} do not match the {ndim} input dimension(s)", shape)
    for a in axes:
        if not 0 <= a < ndim:
            fail("transpose", f"axis {a} must be in range [0, {ndim})", shape)
    if sorted(axes) != list(range(ndim)):
        fail("transpose", f"axes {axes} are not a permutation", shape)
    return axes


def _transpose_fwd(oc, attrs, inputs, out):
    x = inputs[0]
    p = _perm(attrs, x.ndim, x.shape)
    y = x.transpose(p)
    return [put(out, 0, oc.xp.array(y, order='C', copy=True) if out is None else y)]


def _transpose_bwd(oc, attrs, inputs, outputs, out_grads):
    g = out_grads[0]
    p = _perm(attrs, g.ndim, g.shape)
    return [oc.xp.ascontiguousarray(g.transpose(tuple(np.argsort(p))))]


def _transpose_graph(F, attrs, inputs, outputs, out_grads):
    g = out_grads[0]
    p = _perm(attrs, g.ndim, g.shape)
    return [F.transpose(g, axes=tuple(int(i) for i in np.argsort(p)))]


def _transpose_infer(attrs, in_shapes, out_shapes=(None,)):
    """Both ways, as MXNet: a known output shape fills the input's unknown (0) dims."""
    s, o = in_shapes[0], out_shapes[0]
    if s is None and o is None:
        return [None], [None]
    if s is None:
        s = (0,) * len(o)
    p = _perm(attrs, len(s), s)
    if o is not None and len(o) == len(s):
        filled = list(s)
        for k, i in enumerate(p):
            filled[i] = filled[i] or o[k]
        s = tuple(filled)
    return [tuple(s)], [tuple(s[i] for i in p)]


register(OpDef("transpose", _transpose_fwd, backward=_transpose_bwd,
               attrs={"axes": Attr("shape", ())}, infer_shape=_transpose_infer,
               infer_shape_outputs=True, backward_uses=(), backward_graph=_transpose_graph,
               doc="Permute the axes (reverse them when ``axes`` is empty).", listed_inputs=False))


def _swap_perm(attrs, shape):
    n = len(shape)
    d1 = norm_axis("SwapAxis", attrs.dim1, n)
    d2 = norm_axis("SwapAxis", attrs.dim2, n)
    p = list(range(n))
    p[d1], p[d2] = p[d2], p[d1]
    return tuple(p)


def _swap_fwd(oc, attrs, inputs, out):
    x = inputs[0]
    y = x.transpose(_swap_perm(attrs, x.shape))
    return [put(out, 0, oc.xp.array(y, order='C', copy=True) if out is None else y)]


def _swap_bwd(oc, attrs, inputs, outputs, out_grads):
    g = out_grads[0]
    return [oc.xp.ascontiguousarray(g.transpose(_swap_perm(attrs, g.shape)))]


def _swap_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    p = _swap_perm(attrs, s)
    return [tuple(s)], [tuple(s[i] for i in p)]


register(OpDef("SwapAxis", _swap_fwd, backward=_swap_bwd,
               attrs={"dim1": Attr("int", 0), "dim2": Attr("int", 0)},
               infer_shape=_swap_infer, aliases=("swapaxes",), backward_uses=(),
               backward_graph=lambda F, attrs, ins, outs, g: [F.SwapAxis(g[0], dim1=attrs.dim1,
                                                                         dim2=attrs.dim2)],
               doc="Swap two axes."))


# -- depth_to_space / space_to_depth ---------------------------------------------------------
def _d2s_shape(op, b, s):
    if len(s) != 4:
        fail(op, "input must be 4-D (N, C, H, W)", s)
    if b <= 0:
        fail(op, f"block_size must be positive, got {b}", s)
    n, c, h, w = s
    if op == "depth_to_space":
        if c % (b * b):
            fail(op, f"channels {c} must be divisible by block_size**2 = {b * b}", s)
        return (n, c // (b * b), h * b, w * b)
    if h % b or w % b:
        fail(op, f"height {h} and width {w} must be divisible by block_size {b}", s)
    return (n, c * b * b, h // b, w // b)


def _d2s(xp, x, b):
    n, c, h, w = x.shape
    y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return xp.array(y, order='C', copy=True).reshape(n, c // (b * b), h * b, w * b)


def _s2d(xp, x, b):
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return xp.array(y, order='C', copy=True).reshape(n, c * b * b, h // b, w // b)


def _register_block(name, fwd, inv):
    def forward(oc, attrs, inputs, out):
        x = inputs[0]
        if 0 in x.shape:  # MXNet checks every dimension, also under np_shape
            fail(name, f"every dimension of the input must be non-zero, got {x.shape}",
                 x.shape)
        _d2s_shape(name, attrs.block_size, x.shape)
        return [put(out, 0, fwd(oc.xp, x, attrs.block_size))]

    def backward(oc, attrs, inputs, outputs, out_grads):
        return [inv(oc.xp, out_grads[0], attrs.block_size)]

    def infer(attrs, in_shapes):
        s = in_shapes[0]
        if s is None:
            return [None], [None]
        return [tuple(s)], [_d2s_shape(name, attrs.block_size, tuple(s))]

    register(OpDef(name, forward, backward=backward, attrs={"block_size": Attr("int")},
                   infer_shape=infer, backward_uses=(),
                   doc=f"``{name}`` on NCHW data (DCR order, as MXNet)."))


_register_block("depth_to_space", _d2s, _s2d)
_register_block("space_to_depth", _s2d, _d2s)


# -- shape_array / size_array ------------------------------------------------------------------
def _shape_array_fwd(oc, attrs, inputs, out):
    x = inputs[0]
    return [put(out, 0, oc.xp.asarray(np.array(x.shape or (1,), dtype=np.int64)))]


def _size_array_fwd(oc, attrs, inputs, out):
    return [put(out, 0, oc.xp.asarray(np.array([inputs[0].size], dtype=np.int64)))]


def _int64_type(op, attrs, in_dtypes):
    return in_dtypes, [np.dtype(np.int64)]


register(OpDef("shape_array", _shape_array_fwd, differentiable=False,
               infer_shape=lambda attrs, s: (s, [None if s[0] is None else (max(len(s[0]), 1),)]),
               infer_type=_int64_type, doc="The shape of the input as an int64 array.",
               listed_inputs=False))
register(OpDef("size_array", _size_array_fwd, differentiable=False,
               infer_shape=lambda attrs, s: (s, [(1,)]),
               infer_type=_int64_type,
               doc="The size of the input as an int64 array of shape (1,).", listed_inputs=False))
