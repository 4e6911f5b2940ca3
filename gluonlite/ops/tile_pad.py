"""Operators that replicate or rearrange values: ``broadcast_to``, ``broadcast_like``,
``broadcast_axis``, ``tile``, ``repeat``, ``reverse``, ``Crop`` and ``pad``.

Gradients of replicating operators sum the head gradient back over the copies;
``pad``'s edge/reflect gradient scatters through the padded index map
(``xp.add.at``).  Semantics and error cases follow MXNet 1.9.1 (``pad`` takes
4-D/5-D input with no padding on the first two axes, ``Crop`` takes NCHW).
"""
from __future__ import annotations

from .attrs import Attr
from .common import fail, norm_axis, put
from .registry import OpDef, register
from ..util import is_np_shape


def _sum_to(xp, g, shape):
    """Sum ``g`` over the axes where ``shape`` has size 1 (same number of dims)."""
    axes = tuple(i for i, (a, b) in enumerate(zip(shape, g.shape)) if a == 1 and b != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return xp.array(g.reshape(shape), copy=True)


def _broadcast_result(op, src, dst, shapes):
    if len(src) != len(dst):
        fail(op, f"operand of shape {tuple(src)} cannot be broadcast to {tuple(dst)}", *shapes)
    out = []
    for a, b in zip(src, dst):
        if b == 0:
            b = a
        if a != b and a != 1 and a != 0:
            fail(op, f"array cannot be broadcast from {tuple(src)} to {tuple(dst)}", *shapes)
        out.append(b)
    return tuple(out)


def _register_broadcast(name, target, inputs=("data",), attrs=None, aliases=(), doc="",
                        listed_inputs=True):
    def forward(oc, attrs_, ins, out):
        shape = target(attrs_, [a.shape for a in ins])
        y = oc.xp.broadcast_to(ins[0], shape)
        return [put(out, 0, y.copy() if out is None else y)]

    def backward(oc, attrs_, ins, outputs, out_grads):
        return [_sum_to(oc.xp, out_grads[0], ins[0].shape)] + [None] * (len(ins) - 1)

    def infer(attrs_, in_shapes):
        if any(s is None for s in in_shapes):
            return in_shapes, [None]
        return in_shapes, [target(attrs_, [tuple(s) for s in in_shapes])]

    def graph(F, attrs_, ins, outputs, out_grads):
        g, shape = out_grads[0], ins[0].shape
        axes = tuple(i for i, (a, b) in enumerate(zip(shape, g.shape)) if a == 1 and b != 1)
        if axes:
            g = F.sum(g, axis=axes, keepdims=True)
        return [g.reshape(shape)] + [None] * (len(ins) - 1)

    register(OpDef(name, forward, backward=backward, inputs=inputs, attrs=attrs or {},
                   aliases=aliases, infer_shape=infer, backward_uses=("inputs",),
                   backward_graph=graph, doc=doc, listed_inputs=listed_inputs))


def _bto_target(attrs, shapes):
    return _broadcast_result("broadcast_to", shapes[0], attrs.shape, shapes)


def _blike_target(attrs, shapes):
    lhs, rhs = tuple(shapes[0]), tuple(shapes[1])
    if attrs.lhs_axes is None and attrs.rhs_axes is None:
        return _broadcast_result("broadcast_like", lhs, rhs, shapes)
    la, ra = attrs.lhs_axes or (), attrs.rhs_axes or ()
    if len(la) != len(ra):
        fail("broadcast_like", f"lhs_axes {la} and rhs_axes {ra} differ in length", *shapes)
    if not la:
        fail("broadcast_like", "empty lhs_axes/rhs_axes are not allowed", *shapes)
    dst = list(lhs)
    for a, b in zip(la, ra):
        src_dim = rhs[norm_axis("broadcast_like", b, len(rhs))]
        dst[norm_axis("broadcast_like", a, len(lhs))] = src_dim
    return _broadcast_result("broadcast_like", lhs, tuple(dst), shapes)


def _baxis_target(attrs, shapes):
    s = tuple(shapes[0])
    if len(attrs.axis) != len(attrs.size):
        fail("broadcast_axis", f"axis {attrs.axis} and size {attrs.size} differ in length", s)
    dst = list(s)
    for a, n in zip(attrs.axis, attrs.size):
        a = norm_axis("broadcast_axis", a, len(s))
        if s[a] != 1:
            fail("broadcast_axis", f"broadcasting axis {a} must have size 1, not {s[a]}", s)
        dst[a] = n
    return tuple(dst)


_register_broadcast("broadcast_to", _bto_target, attrs={"shape": Attr("shape", ())},
                    doc="Broadcast to ``shape`` (0 keeps the input dimension).")
_register_broadcast("broadcast_like", _blike_target, inputs=("lhs", "rhs"),
                    attrs={"lhs_axes": Attr("shape", None), "rhs_axes": Attr("shape", None)},
                    doc="Broadcast lhs to the shape of rhs (or only the given axes).")
_register_broadcast("broadcast_axis", _baxis_target, aliases=("broadcast_axes",),
                    listed_inputs=False,
                    attrs={"axis": Attr("shape", ()), "size": Attr("shape", ())},
                    doc="Broadcast the size-1 axes ``axis`` to ``size``.")


# -- tile / repeat / reverse -------------------------------------------------------------------
def _tile_reps(attrs, shape):
    reps = tuple(attrs.reps)
    # MXNet: empty reps leave the array as it is; a 0 repetition (a zero-size result)
    # needs np_shape semantics
    lowest = 0 if is_np_shape() else 1
    if any(r < lowest for r in reps):
        fail("tile", f"reps {reps} must be {'non-negative' if lowest == 0 else 'positive'}"
             + ("" if lowest == 0 else " (0 needs mx.np_shape())"), shape)
    n = max(len(reps), len(shape))
    return (1,) * (n - len(reps)) + reps, (1,) * (n - len(shape)) + tuple(shape)


def _tile_fwd(oc, attrs, inputs, out):
    x = inputs[0]
    reps, _ = _tile_reps(attrs, x.shape)
    return [put(out, 0, oc.xp.tile(x, reps))]


def _tile_bwd(oc, attrs, inputs, outputs, out_grads):
    x = inputs[0]
    reps, xs = _tile_reps(attrs, x.shape)
    split = []
    for r, d in zip(reps, xs):
        split += [r, d]
    g = out_grads[0].reshape(split).sum(axis=tuple(range(0, len(split), 2)))
    return [g.reshape(x.shape)]


def _tile_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    reps, xs = _tile_reps(attrs, s)
    return [tuple(s)], [tuple(r * d for r, d in zip(reps, xs))]


register(OpDef("tile", _tile_fwd, backward=_tile_bwd, attrs={"reps": Attr("shape")},
               infer_shape=_tile_infer, backward_uses=("inputs",),
               doc="Repeat the whole array ``reps`` times along each axis."))


def _repeat_axis(attrs, shape):
    if attrs.repeats < 0:
        fail("repeat", f"repeats must be non-negative, got {attrs.repeats}", shape)
    return None if attrs.axis is None else norm_axis("repeat", attrs.axis, len(shape))


def _repeat_fwd(oc, attrs, inputs, out):
    x = inputs[0]
    axis = _repeat_axis(attrs, x.shape)
    y = oc.xp.repeat(x.reshape(-1) if axis is None else x, attrs.repeats, axis=axis or 0)
    return [put(out, 0, y)]


def _repeat_bwd(oc, attrs, inputs, outputs, out_grads):
    x = inputs[0]
    axis = _repeat_axis(attrs, x.shape)
    g = out_grads[0]
    if axis is None:
        return [g.reshape(-1, attrs.repeats).sum(axis=1).reshape(x.shape)]
    shape = x.shape[:axis + 1] + (attrs.repeats,) + x.shape[axis + 1:]
    return [g.reshape(shape).sum(axis=axis + 1)]


def _repeat_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    s = tuple(s)
    axis = _repeat_axis(attrs, s)
    if axis is None:
        n = 1
        for d in s:
            n *= d
        return [s], [(n * attrs.repeats,)]
    return [s], [s[:axis] + (s[axis] * attrs.repeats,) + s[axis + 1:]]


register(OpDef("repeat", _repeat_fwd, backward=_repeat_bwd,
               attrs={"repeats": Attr("int"), "axis": Attr("int", None)},
               infer_shape=_repeat_infer, backward_uses=("inputs",),
               doc="Repeat each element ``repeats`` times (flattened when ``axis`` is None)."))


def _flip(xp, x, attrs):
    axes = tuple(norm_axis("reverse", a, x.ndim) for a in attrs.axis)
    return xp.array(xp.flip(x, axis=axes), order='C', copy=True) if axes else x.copy()


register(OpDef("reverse", lambda oc, attrs, ins, out: [put(out, 0, _flip(oc.xp, ins[0], attrs))],
               backward=lambda oc, attrs, ins, outs, g: [_flip(oc.xp, g[0], attrs)],
               attrs={"axis": Attr("shape")}, aliases=("flip",), backward_uses=(),
               backward_graph=lambda F, attrs, ins, outs, g: [F.reverse(g[0], axis=attrs.axis)],
               infer_shape=lambda attrs, s: (s, [s[0]]),
               doc="Reverse the order of elements along ``axis``."))


# -- Crop ----------------------------------------------------------------------------------
def _crop_box(attrs, shapes):
    s = tuple(shapes[0])
    if len(s) != 4:
        fail("Crop", "input data should be 4-D (batch, channel, y, x)", *shapes)
    if attrs.num_args == 2:
        if len(shapes) < 2 or len(shapes[1]) < 2:
            fail("Crop", "crop_like must have at least 2 dimensions", *shapes)
        h, w = shapes[1][-2], shapes[1][-1]
    else:
        if len(attrs.h_w) != 2:
            fail("Crop", f"h_w must have 2 entries, got {attrs.h_w}", *shapes)
        h, w = attrs.h_w
    if h > s[2] or w > s[3] or h <= 0 or w <= 0:
        fail("Crop", f"crop size ({h}, {w}) must be positive and within the input", *shapes)
    if attrs.center_crop:
        oy, ox = (s[2] - h) // 2, (s[3] - w) // 2
    else:
        oy, ox = attrs.offset
        if oy + h > s[2] or ox + w > s[3] or oy < 0 or ox < 0:
            fail("Crop", f"offset {attrs.offset} with crop size ({h}, {w}) exceeds the input",
                 *shapes)
    return oy, ox, h, w


def _crop_fwd(oc, attrs, inputs, out):
    oy, ox, h, w = _crop_box(attrs, [a.shape for a in inputs])
    return [put(out, 0, inputs[0][:, :, oy:oy + h, ox:ox + w].copy())]


def _crop_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x = inputs[0]
    oy, ox, h, w = _crop_box(attrs, [a.shape for a in inputs])
    dx = xp.zeros(x.shape, dtype=x.dtype)
    dx[:, :, oy:oy + h, ox:ox + w] = out_grads[0]
    grads = [dx]
    if len(inputs) > 1:
        grads.append(xp.zeros(inputs[1].shape, dtype=inputs[1].dtype))
    return grads


def _crop_infer(attrs, in_shapes):
    if any(s is None for s in in_shapes):
        return in_shapes, [None]
    s = tuple(in_shapes[0])
    _, _, h, w = _crop_box(attrs, in_shapes)
    return in_shapes, [(s[0], s[1], h, w)]


register(OpDef("Crop", _crop_fwd, backward=_crop_bwd,
               attrs={"offset": Attr("shape", (0, 0)), "h_w": Attr("shape", (0, 0)),
                      "center_crop": Attr("bool", False), "num_args": Attr("int")},
               inputs=lambda attrs: ("data", "crop_like") if attrs.num_args == 2 else ("data",),
               key_var_num_args="num_args", infer_shape=_crop_infer, backward_uses=("inputs",),
               doc="Crop the last two axes of NCHW data to ``h_w`` or to crop_like's size."))


# -- pad -----------------------------------------------------------------------------------
def _pad_pairs(attrs, shape):
    nd = len(shape)
    if nd not in (4, 5):
        fail("pad", "only 4-D or 5-D input is supported", shape)
    pw = tuple(attrs.pad_width)
    if len(pw) != 2 * nd:
        fail("pad", f"pad_width {pw} must have 2 entries per axis ({2 * nd})", shape)
    pairs = [(pw[2 * i], pw[2 * i + 1]) for i in range(nd)]
    if any(pairs[0]) or any(pairs[1]):
        fail("pad", "padding on the first two axes must be zero", shape)
    if any(a < 0 or b < 0 for a, b in pairs):
        fail("pad", f"pad_width {pw} must be non-negative", shape)
    if attrs.mode == "reflect" and any(a >= d or b >= d for (a, b), d in zip(pairs[2:], shape[2:])):
        fail("pad", "reflect padding must be smaller than the input size", shape)
    return pairs


def _pad_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    pairs = _pad_pairs(attrs, x.shape)
    if attrs.mode == "constant":
        y = xp.pad(x, pairs, mode="constant", constant_values=attrs.constant_value)
    else:
        y = xp.pad(x, pairs, mode=attrs.mode)
    return [put(out, 0, y.astype(x.dtype, copy=False))]


def _pad_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x = inputs[0]
    g = out_grads[0]
    pairs = _pad_pairs(attrs, x.shape)
    if attrs.mode == "constant":
        idx = tuple(slice(a, a + d) for (a, _), d in zip(pairs, x.shape))
        return [g[idx].copy()]
    index = xp.pad(xp.arange(x.size).reshape(x.shape), pairs, mode=attrs.mode)
    dx = xp.zeros(x.size, dtype=g.dtype)
    xp.add.at(dx, index.reshape(-1), g.reshape(-1))
    return [dx.reshape(x.shape)]


def _pad_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    pairs = _pad_pairs(attrs, tuple(s))
    return [tuple(s)], [tuple(d + a + b if d else 0 for d, (a, b) in zip(s, pairs))]


register(OpDef("Pad", _pad_fwd, backward=_pad_bwd,
               attrs={"mode": Attr("str", choices=("constant", "edge", "reflect")),
                      "pad_width": Attr("shape"), "constant_value": Attr("float", 0.0)},
               aliases=("pad",), infer_shape=_pad_infer, backward_uses=("inputs",),
               doc="Pad the spatial axes of 4-D/5-D data (constant, edge or reflect)."))
