"""Shape manipulation of MXNet's NumPy interface as single operators, so that ``mx.np``
and ``mx.sym.np`` (hybridized blocks under ``npx.set_np()``) build the same node:
``_np_roll``, ``_np_moveaxis``, ``_npi_rot90``, ``_np_diagonal``, ``_np_diagflat``,
``_np_trace``, ``_np_atleast_1d/2d/3d``, ``_npi_hstack``/``_npi_vstack``/``_npi_dstack``/
``_npi_column_stack``, ``_npi_diff``, ``_npi_ediff1d``.

Every attribute is resolved against the input's rank inside forward and shape inference,
never by the caller.  The copying operators share one gradient rule (:func:`_scatter_grad`):
forward applied to arrays of source positions tells where each output element came from,
and the head gradient is summed back onto those positions.
"""
from __future__ import annotations

import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .common import fail, norm_axis, put
from .registry import OpDef, register


class NpOpValueError(MXNetError, ValueError):
    """An invalid argument that NumPy (and so MXNet's ``mx.np``) reports as
    ``ValueError`` (a repeated axis)."""


# -- the shared machinery ------------------------------------------------------------------
def _dummy(shape):
    """A zero-cost array of ``shape`` (a broadcast scalar) for shape inference."""
    return np.broadcast_to(np.zeros((), np.int8), tuple(shape))


def _as_list(res):
    return list(res) if isinstance(res, (list, tuple)) else [res]


def _scatter_grad(xp, fn, attrs, inputs, out_grads, reduce_last: bool = False):
    """Input gradients of an operator that copies (or zero-fills) elements: ``fn`` maps
    arrays of 1-based source positions to the outputs' positions (0 = a filled element);
    with ``reduce_last`` each output is the sum over the last axis of ``fn``'s result."""
    sizes = [int(x.size) for x in inputs]
    offsets = np.cumsum([0] + sizes)
    idx = [xp.arange(offsets[i] + 1, offsets[i + 1] + 1, dtype=np.int64).reshape(x.shape)
           for i, x in enumerate(inputs)]
    pos = _as_list(fn(xp, attrs, idx))
    total = int(offsets[-1]) + 1
    acc = xp.zeros(total, np.float64)
    for p, g in zip(pos, out_grads):
        if reduce_last:
            g = xp.broadcast_to(g.reshape(p.shape[:-1])[..., None], p.shape)
        acc += xp.bincount(p.reshape(-1), weights=g.reshape(-1).astype(np.float64),
                           minlength=total)
    return [acc[offsets[i] + 1:offsets[i + 1] + 1].reshape(x.shape).astype(x.dtype)
            for i, x in enumerate(inputs)]


def _register_copy_op(name: str, fn, attrs: dict, doc: str, inputs=("data",),
                      num_args: bool = False, outputs_per_input: bool = False,
                      reduce_last: bool = False, aliases=()):
    """Register an operator whose outputs are ``fn(xp, attrs, inputs)`` (a list, or one
    array), whose elements are copies of input elements or zeros; ``reduce_last`` sums
    ``fn``'s result over its last axis."""

    def compute(xp, attrs, arrs):
        res = _as_list(fn(xp, attrs, arrs))
        return [r.sum(axis=-1, dtype=r.dtype) for r in res] if reduce_last else res

    def forward(oc, attrs, ins, out):
        xp = oc.xp
        res = []
        for r in compute(xp, attrs, ins):
            if not r.flags.c_contiguous or any(xp.may_share_memory(r, x) for x in ins):
                r = r.copy()  # views of the input become arrays of their own
            res.append(r)
        return [put(out, i, r) for i, r in enumerate(res)]

    def backward(oc, attrs, ins, outputs, out_grads):
        return _scatter_grad(oc.xp, fn, attrs, ins, out_grads, reduce_last)

    def n_out(attrs):
        return attrs.num_args if outputs_per_input else 1

    def infer(attrs, in_shapes):
        if any(s is None for s in in_shapes):
            return list(in_shapes), [None] * n_out(attrs)
        # a 0 is taken as a zero-size axis (mx.np's shapes), not an unknown one
        res = _as_list(fn(np, attrs, [_dummy(s) for s in in_shapes]))
        if reduce_last:
            res = [r.sum(axis=-1, dtype=r.dtype) for r in res]
        return [tuple(s) for s in in_shapes], [tuple(r.shape) for r in res]

    def infer_type(op, attrs, in_dtypes):
        if any(d is None for d in in_dtypes):
            return list(in_dtypes), [None] * n_out(attrs)
        dt = np.result_type(*[np.dtype(d) for d in in_dtypes])
        outs = [np.dtype(d) for d in in_dtypes] if outputs_per_input else [dt]
        return list(in_dtypes), outs

    all_attrs = dict(attrs)
    kw = {}
    if num_args:
        all_attrs["num_args"] = Attr("int")
        kw["key_var_num_args"] = "num_args"
        in_names = (lambda a: tuple(f"arg{i}" for i in range(a.num_args)))
    else:
        in_names = inputs
    register(OpDef(name, forward, backward=backward, attrs=all_attrs, inputs=in_names,
                   num_outputs=n_out, infer_shape=infer, infer_type=infer_type,
                   backward_uses=("inputs",), aliases=tuple(aliases), doc=doc, **kw))


def _axes(op, axes, ndim):
    return tuple(norm_axis(op, int(a), ndim) for a in axes)


# -- roll, moveaxis, rot90 -------------------------------------------------------------------
def _roll(xp, attrs, ins):
    x = ins[0]
    shift = attrs.shift
    if shift is None or len(shift) == 0:
        fail("_np_roll", "shift is required", x.shape)
    if attrs.axis is None or len(attrs.axis) == 0:
        if len(shift) != 1:
            fail("_np_roll", "shift must be one integer when axis is None", x.shape)
        return xp.roll(x, int(shift[0]))
    axis = _axes("_np_roll", attrs.axis, x.ndim)
    if len(shift) not in (1, len(axis)):
        fail("_np_roll", f"shift {tuple(shift)} and axis {tuple(attrs.axis)} differ in "
             "length", x.shape)
    shift = tuple(shift) * len(axis) if len(shift) == 1 else tuple(shift)
    return xp.roll(x, shift, axis)


_register_copy_op("_np_roll", _roll,
                  {"shift": Attr("shape", None, optional=True),
                   "axis": Attr("shape", None, optional=True)},
                  "NumPy ``roll``: elements shifted along ``axis`` (the flattened array "
                  "when None), wrapping around.")


def _moveaxis(xp, attrs, ins):
    x = ins[0]
    src, dst = tuple(attrs.source), tuple(attrs.destination)
    if len(src) != len(dst):
        fail("_np_moveaxis", f"source {src} and destination {dst} differ in length", x.shape)
    src, dst = _axes("_np_moveaxis", src, x.ndim), _axes("_np_moveaxis", dst, x.ndim)
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        fail("_np_moveaxis", f"repeated axis in source {src} or destination {dst}", x.shape)
    return xp.moveaxis(x, src, dst)


_register_copy_op("_np_moveaxis", _moveaxis,
                  {"source": Attr("shape"), "destination": Attr("shape")},
                  "NumPy ``moveaxis``: axes ``source`` moved to ``destination``.",
                  inputs=("a",))


def _rot90(xp, attrs, ins):
    x = ins[0]
    axes = (0, 1) if attrs.axes is None or len(attrs.axes) == 0 else tuple(attrs.axes)
    if len(axes) != 2 or x.ndim < 2:
        fail("_npi_rot90", f"axes {axes} must name two axes of an input of rank >= 2",
             x.shape)
    a0, a1 = _axes("_npi_rot90", axes, x.ndim)
    if a0 == a1:
        fail("_npi_rot90", f"axes {axes} must differ", x.shape)
    return xp.rot90(x, attrs.k, (a0, a1))


_register_copy_op("_npi_rot90", _rot90,
                  {"k": Attr("int", 1), "axes": Attr("shape", None, optional=True)},
                  "NumPy ``rot90``: ``k`` quarter turns in the plane of ``axes``.")


# -- diagonal, diagflat, trace -----------------------------------------------------------------
def _diagonal(op):
    def fn(xp, attrs, ins):
        x = ins[0]
        if x.ndim < 2:
            fail(op, "the input must have at least two axes", x.shape)
        a1, a2 = _axes(op, (attrs.axis1, attrs.axis2), x.ndim)
        if a1 == a2:
            fail(op, f"axis1 and axis2 are both {a1}", x.shape)
        return xp.diagonal(x, attrs.offset, a1, a2)
    return fn


_DIAG_ATTRS = {"offset": Attr("int", 0), "axis1": Attr("int", 0), "axis2": Attr("int", 1)}
_register_copy_op("_np_diagonal", _diagonal("_np_diagonal"), _DIAG_ATTRS,
                  "NumPy ``diagonal``: the ``offset`` diagonal of the planes "
                  "(``axis1``, ``axis2``), as the last axis.")
_register_copy_op("_np_trace", _diagonal("_np_trace"), _DIAG_ATTRS,
                  "NumPy ``trace``: sum of the ``offset`` diagonal of the planes "
                  "(``axis1``, ``axis2``).", reduce_last=True)


def _diagflat(xp, attrs, ins):
    return xp.diagflat(ins[0], attrs.k)


_register_copy_op("_np_diagflat", _diagflat, {"k": Attr("int", 0)},
                  "NumPy ``diagflat``: the flattened input on the ``k``-th diagonal of a "
                  "square matrix.")


# -- atleast_nd ---------------------------------------------------------------------------------
def _atleast(n):
    def fn(xp, attrs, ins):
        res = []
        for x in ins:
            if x.ndim >= n:
                res.append(x)
            elif n == 1 or x.ndim == 0:
                res.append(x.reshape((1,) * n))
            elif n == 2:
                res.append(x[None, :])
            else:  # 3-d: (N,) -> (1, N, 1), (M, N) -> (M, N, 1)
                res.append(x[None, :, None] if x.ndim == 1 else x[:, :, None])
        return res
    return fn


for _n in (1, 2, 3):
    _register_copy_op(f"_np_atleast_{_n}d", _atleast(_n), {},
                      f"NumPy ``atleast_{_n}d`` of each input (one output per input).",
                      num_args=True, outputs_per_input=True)


# -- hstack, vstack, dstack, column_stack ------------------------------------------------------
def _join(op, np_name):
    def fn(xp, attrs, ins):
        if not ins:
            fail(op, "needs at least one array")
        dt = np.result_type(*[x.dtype for x in ins])
        arrs = [x.astype(dt, copy=False) for x in ins]
        try:
            return getattr(xp, np_name)(arrs)
        except ValueError as e:
            fail(op, str(e), *[x.shape for x in ins])
    return fn


_register_copy_op("_npi_hstack", _join("_npi_hstack", "hstack"), {"dim": Attr("int", 1)},
                  "NumPy ``hstack``: 1-d inputs joined along axis 0, others along axis 1.",
                  num_args=True)
_register_copy_op("_npi_vstack", _join("_npi_vstack", "vstack"), {},
                  "NumPy ``vstack``: inputs as at least 2-d, joined along axis 0.",
                  num_args=True)
_register_copy_op("_npi_dstack", _join("_npi_dstack", "dstack"), {"dim": Attr("int", 1)},
                  "NumPy ``dstack``: inputs as at least 3-d, joined along axis 2.",
                  num_args=True)
_register_copy_op("_npi_column_stack", _join("_npi_column_stack", "column_stack"), {},
                  "NumPy ``column_stack``: 1-d inputs as columns, joined along axis 1.",
                  num_args=True)


# -- diff, ediff1d ------------------------------------------------------------------------------
def _diff_forward(oc, attrs, inputs, out):
    x = inputs[0]
    if x.ndim == 0:
        fail("_npi_diff", "diff needs an input of at least one axis", x.shape)
    if attrs.n < 0:
        fail("_npi_diff", f"order n={attrs.n} must be non-negative", x.shape)
    axis = norm_axis("_npi_diff", attrs.axis, x.ndim)
    return [put(out, 0, oc.xp.diff(x, attrs.n, axis) if attrs.n else x.copy())]


def _diff_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x = inputs[0]
    axis = norm_axis("_npi_diff", attrs.axis, x.ndim)
    g = out_grads[0]
    if attrs.n >= x.shape[axis]:  # an empty result
        return [xp.zeros_like(x)]
    for _ in range(attrs.n):  # the adjoint of one first difference
        zero = xp.zeros(g.shape[:axis] + (1,) + g.shape[axis + 1:], g.dtype)
        g = xp.concatenate([zero, g], axis) - xp.concatenate([g, zero], axis)
    return [g.astype(x.dtype, copy=False)]


def _diff_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None or len(s) == 0:
        return [s], [None]
    axis = norm_axis("_npi_diff", attrs.axis, len(s))
    out = list(s)
    out[axis] = max(s[axis] - attrs.n, 0) if s[axis] else 0
    return [tuple(s)], [tuple(out)]


register(OpDef("_npi_diff", _diff_forward, backward=_diff_backward, inputs=("a",),
               attrs={"n": Attr("int", 1), "axis": Attr("int", -1)},
               infer_shape=_diff_infer, backward_uses=("inputs",),
               doc="NumPy ``diff``: the ``n``-th difference along ``axis``."))


def _ediff_inputs(attrs):
    names = ["input1"]
    if attrs.to_begin_arr_given:
        names.append("input2")
    if attrs.to_end_arr_given:
        names.append("input3")
    return tuple(names)


def _ediff_parts(xp, attrs, inputs):
    x = inputs[0].reshape(-1)
    rest = list(inputs[1:])
    begin = rest.pop(0).reshape(-1) if attrs.to_begin_arr_given else (
        None if attrs.to_begin_scalar is None else xp.full(1, attrs.to_begin_scalar, x.dtype))
    end = rest.pop(0).reshape(-1) if attrs.to_end_arr_given else (
        None if attrs.to_end_scalar is None else xp.full(1, attrs.to_end_scalar, x.dtype))
    return x, begin, end


def _ediff_forward(oc, attrs, inputs, out):
    xp = oc.xp
    x, begin, end = _ediff_parts(xp, attrs, inputs)
    parts = [p.astype(x.dtype, copy=False) for p in
             ([] if begin is None else [begin]) + [x[1:] - x[:-1]] +
             ([] if end is None else [end])]
    return [put(out, 0, xp.concatenate(parts))]


def _ediff_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x, begin, end = _ediff_parts(xp, attrs, inputs)
    g = out_grads[0]
    nb = 0 if begin is None else begin.size
    gd = g[nb:nb + max(x.size - 1, 0)]
    zero = xp.zeros(1, g.dtype)
    gx = xp.concatenate([zero, gd]) - xp.concatenate([gd, zero]) if x.size else \
        xp.zeros(0, g.dtype)
    grads = [gx.reshape(inputs[0].shape).astype(inputs[0].dtype, copy=False)]
    if attrs.to_begin_arr_given:
        grads.append(g[:nb].reshape(inputs[1].shape).astype(inputs[1].dtype, copy=False))
    if attrs.to_end_arr_given:
        ge = g[nb + max(x.size - 1, 0):]
        grads.append(ge.reshape(inputs[-1].shape).astype(inputs[-1].dtype, copy=False))
    return grads


def _ediff_infer(attrs, in_shapes):
    if not all(s is not None for s in in_shapes):
        return list(in_shapes), [None]
    sizes = [int(np.prod(s)) for s in in_shapes]
    n = max(sizes[0] - 1, 0)
    i = 1
    for given, scalar in ((attrs.to_begin_arr_given, attrs.to_begin_scalar),
                          (attrs.to_end_arr_given, attrs.to_end_scalar)):
        if given:
            n += sizes[i]
            i += 1
        elif scalar is not None:
            n += 1
    return [tuple(s) for s in in_shapes], [(n,)]


def _ediff_types(op, attrs, in_dtypes):
    return list(in_dtypes), [in_dtypes[0]]


register(OpDef("_npi_ediff1d", _ediff_forward, backward=_ediff_backward,
               inputs=_ediff_inputs,
               attrs={"to_begin_arr_given": Attr("bool", False),
                      "to_end_arr_given": Attr("bool", False),
                      "to_begin_scalar": Attr("float", None, optional=True),
                      "to_end_scalar": Attr("float", None, optional=True)},
               infer_shape=_ediff_infer, infer_type=_ediff_types, backward_uses=("inputs",),
               doc="NumPy ``ediff1d``: differences of the flattened input, with "
                   "``to_begin``/``to_end`` (arrays given as inputs, or scalars)."))


# -- transpose, squeeze, tile (NumPy's rules, 0-d arrays included) -----------------------------
def _perm(op, axes, ndim):
    if axes is None or len(axes) == 0:
        return tuple(range(ndim))[::-1]
    if len(axes) != ndim:
        fail(op, f"axes {tuple(axes)} do not match an input of {ndim} dimension(s)")
    perm = tuple(norm_axis(op, int(a), ndim) for a in axes)
    if len(set(perm)) != ndim:
        raise NpOpValueError(f"Operator {op}: repeated axis in axes {tuple(axes)}")
    return perm


def _transpose_forward(oc, attrs, inputs, out):
    x = inputs[0]
    y = x.transpose(_perm("_np_transpose", attrs.axes, x.ndim))
    return [put(out, 0, y.copy() if out is None else y)]


def _transpose_backward(oc, attrs, inputs, outputs, out_grads):
    x = inputs[0]
    perm = _perm("_np_transpose", attrs.axes, x.ndim)
    inv = tuple(int(i) for i in np.argsort(perm))
    return [out_grads[0].reshape(tuple(x.shape[i] for i in perm)).transpose(inv)]


def _transpose_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    perm = _perm("_np_transpose", attrs.axes, len(s))
    return [tuple(s)], [tuple(s[i] for i in perm)]


register(OpDef("_np_transpose", _transpose_forward, backward=_transpose_backward,
               inputs=("a",), attrs={"axes": Attr("shape", None, optional=True)},
               infer_shape=_transpose_infer, backward_uses=("inputs",),
               doc="NumPy ``transpose``: the axes permuted by ``axes`` (reversed when None "
                   "or empty); a 0-d input stays 0-d."))


def _squeeze_shape(op, shape, axis):
    if axis is None:
        return tuple(d for d in shape if d != 1)
    if not shape:  # NumPy lets axis 0 (or -1) name the one position of a 0-d array
        if any(int(a) not in (0, -1) for a in axis):
            fail(op, f"axis {tuple(axis)} is out of range for a 0-d input", shape)
        return ()
    axes = {norm_axis(op, int(a), len(shape)) for a in axis}
    for a in axes:
        if shape[a] != 1:
            fail(op, f"cannot select an axis to squeeze out which has size not equal to "
                 f"one (axis {a})", shape)
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _squeeze_forward(oc, attrs, inputs, out):
    x = inputs[0]
    return [put(out, 0, x.reshape(_squeeze_shape("_np_squeeze", x.shape, attrs.axis)).copy())]


def _squeeze_backward(oc, attrs, inputs, outputs, out_grads):
    return [out_grads[0].reshape(inputs[0].shape)]


def _squeeze_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    return [tuple(s)], [_squeeze_shape("_np_squeeze", tuple(s), attrs.axis)]


register(OpDef("_np_squeeze", _squeeze_forward, backward=_squeeze_backward,
               inputs=("a",), attrs={"axis": Attr("shape", None, optional=True)},
               infer_shape=_squeeze_infer, backward_uses=("inputs",),
               doc="NumPy ``squeeze``: axes of length one removed (those of ``axis``, or "
                   "all when None); a result may be 0-d."))


def _tile(xp, attrs, ins):
    reps = tuple(int(r) for r in attrs.reps)
    if any(r < 0 for r in reps):
        fail("_npi_tile", f"reps {reps} must be non-negative", ins[0].shape)
    return xp.tile(ins[0], reps)


_register_copy_op("_npi_tile", _tile, {"reps": Attr("shape")},
                  "NumPy ``tile``: the input repeated ``reps`` times along each axis "
                  "(NumPy's rules for unequal ranks; 0-d inputs and zero reps included).",
                  inputs=("A",))
