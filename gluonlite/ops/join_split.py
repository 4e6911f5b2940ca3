"""Joining and splitting: ``Concat``, ``stack``, ``split`` (``SliceChannel``), ``slice``,
``slice_axis`` and ``slice_like``.

``Concat`` infers its inputs' shapes off the axis from the others and the output; slices
follow Python's slice rules (``None`` entries, negative steps), as MXNet 1.9 does.
"""
from __future__ import annotations

from .attrs import Attr
from .common import fail, merge_shapes, norm_axis, put
from .registry import OpDef, register
from . import _visual


# -- Concat ---------------------------------------------------------------------------------
def _concat_fwd(oc, attrs, inputs, out):
    x0 = inputs[0]
    axis = norm_axis("Concat", attrs.dim, x0.ndim)
    _concat_shape(attrs, [a.shape for a in inputs])
    if out is not None:
        return [put(out, 0, oc.xp.concatenate(inputs, axis=axis))]
    return [oc.xp.concatenate(inputs, axis=axis)]


def _concat_bwd(oc, attrs, inputs, outputs, out_grads):
    g = out_grads[0]
    axis = norm_axis("Concat", attrs.dim, g.ndim)
    bounds, pos = [], 0
    for a in inputs[:-1]:
        pos += a.shape[axis]
        bounds.append(pos)
    return [p.copy() for p in oc.xp.split(g, bounds, axis=axis)]


def _concat_shape(attrs, shapes):
    ndim = len(shapes[0])
    axis = norm_axis("Concat", attrs.dim, ndim)
    common = None
    for s in shapes:
        if len(s) != ndim:
            fail("Concat", "all inputs must have the same number of dimensions", *shapes)
        rest = tuple(d for i, d in enumerate(s) if i != axis)
        if common is not None and any(a and b and a != b for a, b in zip(common, rest)):
            fail("Concat", f"input shapes must agree except on dim {axis}", *shapes)
        common = merge_shapes("Concat", "inputs", common, rest)
    return axis, common


def _concat_infer(attrs, in_shapes, out_shapes=(None,)):
    """Inputs agree off the concatenation axis, and a known output shape fills them
    there; lengths along the axis are never inferred backward (as in MXNet)."""
    out = out_shapes[0] if out_shapes else None
    given = [s for s in in_shapes if s is not None]
    if not given and out is None:
        return in_shapes, [None]
    ndim = len(out) if out is not None else len(given[0])
    axis = norm_axis("Concat", attrs.dim, ndim)
    in_shapes = list(in_shapes)
    if out is not None:
        frame = tuple(0 if i == axis else d for i, d in enumerate(out))
        in_shapes = [merge_shapes("Concat", "inputs", s, frame) for s in in_shapes]
    axis, common = _concat_shape(attrs, [tuple(s) for s in in_shapes if s is not None])
    full = []
    for s in in_shapes:
        d = 0 if s is None else s[axis]
        full.append(common[:axis] + (d,) + common[axis:])
    total = 0 if any(s[axis] == 0 for s in full) else sum(s[axis] for s in full)
    return full, [common[:axis] + (total,) + common[axis:]]


register(OpDef("Concat", _concat_fwd, backward=_concat_bwd,
               attrs={"dim": Attr("int", 1), "num_args": Attr("int")},
               inputs=lambda attrs: tuple(f"arg{i}" for i in range(attrs.num_args)),
               key_var_num_args="num_args", aliases=("concat",), infer_shape=_concat_infer,
               infer_shape_outputs=True,
               backward_uses=("inputs",), plot_style=_visual.family("shape"),
               doc="Join the inputs along ``dim``."))


# -- stack -----------------------------------------------------------------------------------
def _stack_fwd(oc, attrs, inputs, out):
    axis = norm_axis("stack", attrs.axis, inputs[0].ndim + 1)
    shape = None
    for a in inputs:
        shape = merge_shapes("stack", "inputs", shape, a.shape)
    return [put(out, 0, oc.xp.stack(inputs, axis=axis))]


def _stack_bwd(oc, attrs, inputs, outputs, out_grads):
    g = out_grads[0]
    axis = norm_axis("stack", attrs.axis, g.ndim)
    return [oc.xp.take(g, i, axis=axis) for i in range(g.shape[axis])]


def _stack_infer(attrs, in_shapes):
    shape = None
    for s in in_shapes:
        shape = merge_shapes("stack", "inputs", shape, s)
    if shape is None:
        return in_shapes, [None]
    axis = norm_axis("stack", attrs.axis, len(shape) + 1)
    return [shape] * len(in_shapes), [shape[:axis] + (len(in_shapes),) + shape[axis:]]


register(OpDef("stack", _stack_fwd, backward=_stack_bwd,
               attrs={"axis": Attr("int", 0), "num_args": Attr("int")},
               inputs=lambda attrs: tuple(f"arg{i}" for i in range(attrs.num_args)),
               key_var_num_args="num_args", infer_shape=_stack_infer, backward_uses=(),
               doc="Join the inputs along a new axis."))


# -- split -------------------------------------------------------------------------------------
def _split_check(attrs, shape):
    axis = norm_axis("split", attrs.axis, len(shape))
    n = attrs.num_outputs
    if n <= 0 or (shape[axis] and shape[axis] % n):
        fail("split", f"cannot split axis {axis} of size {shape[axis]} into {n} equal parts",
             shape)
    if attrs.squeeze_axis and shape[axis] and shape[axis] != n:
        fail("split", f"squeeze_axis needs axis {axis} of size num_outputs={n}", shape)
    return axis


def _split_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    axis = _split_check(attrs, x.shape)
    parts = xp.split(x, attrs.num_outputs, axis=axis)
    if attrs.squeeze_axis:
        parts = [p.reshape(p.shape[:axis] + p.shape[axis + 1:] or (1,)) for p in parts]
    return [put(out, i, p if out is not None else p.copy()) for i, p in enumerate(parts)]


def _split_bwd(oc, attrs, inputs, outputs, out_grads):
    x = inputs[0]
    axis = _split_check(attrs, x.shape)
    step = x.shape[axis] // attrs.num_outputs
    shape = x.shape[:axis] + (step,) + x.shape[axis + 1:]
    return [oc.xp.concatenate([g.reshape(shape) for g in out_grads], axis=axis)]


def _split_infer(attrs, in_shapes, out_shapes=None):
    """Outputs are equal parts of the input along ``axis``; known outputs give the
    input back (MXNet infers ``split``'s input from its outputs too)."""
    s = in_shapes[0]
    n = attrs.num_outputs
    known_out = None
    for o in out_shapes or ():
        if o is not None:
            known_out = merge_shapes("SliceChannel", "outputs", known_out, o)
    if known_out is not None and not (attrs.squeeze_axis and known_out == (1,)):
        if attrs.squeeze_axis:
            axis = norm_axis("SliceChannel", attrs.axis, len(known_out) + 1)
            back = known_out[:axis] + (n,) + known_out[axis:]
        else:
            axis = norm_axis("SliceChannel", attrs.axis, len(known_out))
            back = known_out[:axis] + (known_out[axis] * n,) + known_out[axis + 1:]
        if s is None or len(s) == len(back):
            s = merge_shapes("SliceChannel", "data", s, back)
    if s is None:
        return [None], [None] * n
    s = tuple(s)
    axis = _split_check(attrs, s)
    if attrs.squeeze_axis:
        o = s[:axis] + s[axis + 1:] or (1,)
    else:
        o = s[:axis] + (s[axis] // n,) + s[axis + 1:]
    return [s], [o] * n


register(OpDef("SliceChannel", _split_fwd, backward=_split_bwd,
               attrs={"num_outputs": Attr("int"), "axis": Attr("int", 1),
                      "squeeze_axis": Attr("bool", False)},
               num_outputs=lambda attrs: attrs.num_outputs, aliases=("split",),
               # ``output0``... even for a single output, as MXNet names them
               output_names=lambda attrs: tuple(f"output{i}" for i in range(attrs.num_outputs)),
               infer_shape=_split_infer, infer_shape_outputs=True, backward_uses=("inputs",),
               doc="Split along ``axis`` into ``num_outputs`` equal parts."))


# -- slice / slice_axis / slice_like --------------------------------------------------------------
def _slice_key(attrs, shape):
    begin, end = tuple(attrs.begin), tuple(attrs.end)
    step = tuple(attrs.step) if attrs.step else ()
    if len(begin) != len(end):
        fail("slice", f"begin {begin} and end {end} differ in length", shape)
    if len(begin) > len(shape):
        fail("slice", f"slicing {len(begin)} axes exceeds the data dimensions", shape)
    if step and len(step) != len(begin):
        fail("slice", f"step {step} must have as many entries as begin {begin}", shape)
    key = []
    for i, (b, e) in enumerate(zip(begin, end)):
        s = step[i] if step else None
        if s == 0:
            fail("slice", "slice step cannot be 0", shape)
        key.append(slice(b, e, s))
    return tuple(key)


def _sliced_shape(key, shape):
    out = []
    for i, d in enumerate(shape):
        out.append(len(range(*key[i].indices(d))) if i < len(key) and d else d)
    return tuple(out)


def _register_slicer(name, key_fn, inputs=("data",), attrs=None, aliases=(), doc="",
                     listed_inputs=True):
    def forward(oc, attrs_, ins, out):
        key = key_fn(attrs_, [a.shape for a in ins])
        return [put(out, 0, ins[0][key].copy())]

    def backward(oc, attrs_, ins, outputs, out_grads):
        x = ins[0]
        key = key_fn(attrs_, [a.shape for a in ins])
        dx = oc.xp.zeros(x.shape, dtype=out_grads[0].dtype)
        dx[key] = out_grads[0]
        return [dx] + [None] * (len(ins) - 1)

    def infer(attrs_, in_shapes):
        if any(s is None for s in in_shapes):
            return in_shapes, [None]
        shapes = [tuple(s) for s in in_shapes]
        return shapes, [_sliced_shape(key_fn(attrs_, shapes), shapes[0])]

    register(OpDef(name, forward, backward=backward, inputs=inputs, attrs=attrs or {},
                   aliases=aliases, infer_shape=infer, backward_uses=("inputs",), doc=doc,
                   listed_inputs=listed_inputs))


def _slice_axis_key(attrs, shapes):
    s = shapes[0]
    axis = norm_axis("slice_axis", attrs.axis, len(s))
    d = s[axis]
    b = attrs.begin + d if attrs.begin < 0 else attrs.begin
    e = d if attrs.end is None else (attrs.end + d if attrs.end < 0 else attrs.end)
    if d and not (0 <= b < e <= d):
        fail("slice_axis", f"invalid begin {attrs.begin}, end {attrs.end} for axis {axis} "
             f"of size {d}", s)
    return (slice(None),) * axis + (slice(b, e),)


def _slice_like_key(attrs, shapes):
    s, like = shapes
    if attrs.axes:
        axes = [norm_axis("slice_like", a, len(s)) for a in attrs.axes]
    else:
        axes = list(range(min(len(s), len(like))))
    key = [slice(None)] * len(s)
    for a in axes:
        if a >= len(like):
            fail("slice_like", f"axis {a} exceeds the dimensions of shape_like", *shapes)
        if like[a] > s[a]:
            fail("slice_like", f"shape_like dim {like[a]} exceeds data dim {s[a]} on axis {a}",
                 *shapes)
        key[a] = slice(0, like[a])
    return tuple(key)


_register_slicer("slice", lambda attrs, shapes: _slice_key(attrs, shapes[0]),
                 attrs={"begin": Attr("shape"), "end": Attr("shape"), "step": Attr("shape", ())},
                 aliases=("crop",), listed_inputs=False,
                 doc="Slice with per-axis begin/end/step (``None`` entries, negative steps).")
_register_slicer("slice_axis", _slice_axis_key, listed_inputs=False,
                 attrs={"axis": Attr("int"), "begin": Attr("int"),
                        "end": Attr("int", optional=True)},
                 doc="Slice ``[begin, end)`` along one axis (``end=None``: to the end).")
_register_slicer("slice_like", _slice_like_key, inputs=("data", "shape_like"),
                 attrs={"axes": Attr("shape", ())},
                 doc="Slice data to the shape of shape_like on ``axes`` (all when empty).")


# -- _split_v2 ------------------------------------------------------------------------------
def _split_v2_bounds(attrs, shape):
    """``(axis, [(begin, end), ...])`` of the parts: ``sections`` equal-as-possible parts
    (the first ``size % sections`` one longer) when given, else from ``indices`` (which
    start at 0; the last part runs to the end of the axis)."""
    axis = norm_axis("_split_v2", attrs.axis, len(shape))
    n = shape[axis]
    if attrs.sections > 0:
        small, extra = divmod(n, attrs.sections)
        starts = [i * small + min(i, extra) for i in range(attrs.sections)]
    else:
        starts = list(attrs.indices)
        if not starts or starts[0] != 0:
            fail("_split_v2", f"indices {tuple(starts)} must start with 0", shape)
    ends = starts[1:] + [n]
    for i, (b, e) in enumerate(zip(starts, ends)):
        if e > n:
            fail("_split_v2", f"end {e} is no less than the size of the axis {n}", shape)
        if b > e:
            fail("_split_v2", f"start {b} is not less than end {e} for subarray {i}", shape)
    if attrs.squeeze_axis and any(e - b != 1 for b, e in zip(starts, ends)):
        fail("_split_v2", f"squeeze_axis needs parts of size 1 along axis {axis}", shape)
    return axis, list(zip(starts, ends))


def _split_v2_parts(attrs, shape):
    axis, bounds = _split_v2_bounds(attrs, shape)
    keys = [(slice(None),) * axis + (slice(b, e),) for b, e in bounds]
    return axis, keys


def _split_v2_fwd(oc, attrs, inputs, out):
    x = inputs[0]
    axis, keys = _split_v2_parts(attrs, x.shape)
    parts = [x[k] for k in keys]
    if attrs.squeeze_axis:
        parts = [p.reshape(p.shape[:axis] + p.shape[axis + 1:] or (1,)) for p in parts]
    return [put(out, i, p if out is not None else p.copy()) for i, p in enumerate(parts)]


def _split_v2_bwd(oc, attrs, inputs, outputs, out_grads):
    x = inputs[0]
    _, keys = _split_v2_parts(attrs, x.shape)
    dx = oc.xp.zeros(x.shape, dtype=out_grads[0].dtype)
    for k, g in zip(keys, out_grads):
        dx[k] = g.reshape(dx[k].shape)
    return [dx]


def _split_v2_infer(attrs, in_shapes):
    s = in_shapes[0]
    n_out = _split_v2_count(attrs)
    if s is None:
        return [None], [None] * n_out
    s = tuple(s)
    axis, bounds = _split_v2_bounds(attrs, s)
    outs = []
    for b, e in bounds:
        o = s[:axis] + (e - b,) + s[axis + 1:]
        outs.append(s[:axis] + s[axis + 1:] or (1,) if attrs.squeeze_axis else o)
    return [s], outs


def _split_v2_count(attrs):
    return attrs.sections if attrs.sections > 0 else len(attrs.indices)


register(OpDef("_split_v2", _split_v2_fwd, backward=_split_v2_bwd,
               attrs={"indices": Attr("shape"), "axis": Attr("int", 1),
                      "squeeze_axis": Attr("bool", False), "sections": Attr("int", 0)},
               num_outputs=_split_v2_count, infer_shape=_split_v2_infer,
               output_names=lambda attrs: tuple(f"output{i}"
                                                for i in range(_split_v2_count(attrs))),
               aliases=("_npi_split",), backward_uses=("inputs",),
               doc="Split along ``axis`` at ``indices`` (starting with 0) or into "
                   "``sections`` parts (MXNet ``_split_v2``, behind ``nd.split_v2``)."))
