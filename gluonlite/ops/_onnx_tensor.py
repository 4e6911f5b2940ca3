"""ONNX conversions of shape, indexing and creation operators and the interleaved
attention products (see :mod:`gluonlite.ops.onnx_export`)."""
from __future__ import annotations

import numpy as np

from .onnx_export import INT_MAX, register, scalar


# -- shapes ----------------------------------------------------------------------------
@register("Flatten")
def _flatten(b, n):
    b.node("Flatten", n.inputs, outputs=n.outputs, axis=1)


@register("Reshape")
def _reshape(b, n):
    a = n.attrs
    shape = tuple(a.shape)
    # 0 (copy) and -1 (infer) mean the same in ONNX; MXNet's other codes are resolved
    # from the inferred output shape
    if a.reverse or any(d < -1 for d in shape) or not shape:
        n.static(f"Reshape's target shape {tuple(a.shape)} (resolved to {n.out_shapes[0]})")
        shape = tuple(n.out_shapes[0])
    b.node("Reshape", [n.inputs[0], b.ints(shape, "shape")], outputs=n.outputs)


@register("transpose")
def _transpose(b, n):
    axes = list(n.attrs.axes) or list(range(len(n.in_shapes[0])))[::-1]
    b.node("Transpose", n.inputs, outputs=n.outputs, perm=axes)


@register("expand_dims")
def _expand_dims(b, n):
    axis = n.attrs.axis
    if axis < 0:
        axis += len(n.in_shapes[0]) + 1
    b.node("Unsqueeze", [n.inputs[0], b.ints([axis], "axes")], outputs=n.outputs)


@register("squeeze")
def _squeeze(b, n):
    axes = n.attrs.axis
    if axes is None:
        n.static("the axes of size 1")
        axes = [i for i, d in enumerate(n.in_shapes[0]) if d == 1]
    axes = [axes] if isinstance(axes, int) else list(axes)
    if len(axes) == len(n.in_shapes[0]):  # MXNet keeps one dimension
        axes = axes[1:]
    if not axes:
        b.node("Identity", n.inputs, outputs=n.outputs)
        return
    b.node("Squeeze", [n.inputs[0], b.ints(axes, "axes")], outputs=n.outputs)


@register("Concat")
def _concat(b, n):
    b.node("Concat", n.inputs, outputs=n.outputs, axis=int(n.attrs.dim))


@register("stack")
def _stack(b, n):
    axis = n.attrs.axis % (len(n.in_shapes[0]) + 1)
    axes = b.ints([axis], "axes")
    parts = [b.node("Unsqueeze", [x, axes])[0] for x in n.inputs]
    b.node("Concat", parts, outputs=n.outputs, axis=axis)


@register("SliceChannel")
def _slice_channel(b, n):
    a = n.attrs
    axis = a.axis % len(n.in_shapes[0])
    _split(b, n, n.inputs[:1], axis, int(a.num_outputs), a.squeeze_axis)


def _split(b, n, inputs, axis: int, count: int, squeeze: bool) -> None:
    """``Split`` into ``count`` parts along ``axis`` (equal parts, or the sizes input
    given in ``inputs``), each squeezed along ``axis`` when ``squeeze``."""
    if not squeeze:
        b.node("Split", inputs, outputs=n.outputs, axis=axis)
        return
    parts = b.node("Split", inputs, n_out=count, axis=axis)
    axes = b.ints([axis], "axes")
    for part, name in zip(parts, n.outputs):
        b.node("Squeeze", [part, axes], outputs=[name])


@register("slice_axis")
def _slice_axis(b, n):
    a = n.attrs
    end = INT_MAX if a.end is None else a.end
    b.node("Slice", [n.inputs[0], b.ints([a.begin], "starts"), b.ints([end], "ends"),
                     b.ints([a.axis], "axes")], outputs=n.outputs)


@register("slice")
def _slice(b, n):
    a = n.attrs
    ndim = len(a.begin)
    begin = [0 if v is None else v for v in a.begin]
    step = [1 if v is None else v for v in (tuple(a.step) or (None,) * ndim)]
    end = [(INT_MAX if s > 0 else -INT_MAX) if v is None else v
           for v, s in zip(a.end, step)]
    b.node("Slice", [n.inputs[0], b.ints(begin, "starts"), b.ints(end, "ends"),
                     b.ints(list(range(ndim)), "axes"), b.ints(step, "steps")],
           outputs=n.outputs)


@register("tile")
def _tile(b, n):
    reps = list(n.attrs.reps)
    ndim = len(n.in_shapes[0])
    x = n.inputs[0]
    if len(reps) > ndim:  # MXNet prepends axes of size 1
        n.static("the input shape with the axes tile adds")
        x = b.node("Reshape", [x, b.ints((1,) * (len(reps) - ndim) + tuple(n.in_shapes[0]),
                                         "shape")])[0]
    reps = [1] * (max(ndim, len(reps)) - len(reps)) + reps
    b.node("Tile", [x, b.ints(reps, "repeats")], outputs=n.outputs)


@register("broadcast_to", "broadcast_like", "broadcast_axis")
def _broadcast(b, n):
    n.static(f"the broadcast shape {n.out_shapes[0]}")
    b.node("Expand", [n.inputs[0], b.ints(n.out_shapes[0], "shape")], outputs=n.outputs)


@register("Pad")
def _pad(b, n):
    a = n.attrs
    widths = list(a.pad_width)
    pads = widths[0::2] + widths[1::2]
    ins = [n.inputs[0], b.ints(pads, "pads")]
    if a.mode == "constant":
        ins.append(scalar(b, a.constant_value, n.in_dtypes[0], "value"))
    b.node("Pad", ins, outputs=n.outputs, mode=a.mode)


@register("UpSampling")
def _upsampling(b, n):
    a = n.attrs
    if a.sample_type != "nearest" or len(n.inputs) != 1:
        raise n.unsupported(f"sample_type={a.sample_type!r} with {len(n.inputs)} input(s)")
    nd = len(n.in_shapes[0]) - 2
    scales = b.const(np.array([1.0, 1.0] + [float(a.scale)] * nd, np.float32), "scales")
    b.node("Resize", [n.inputs[0], "", scales], outputs=n.outputs, mode="nearest",
           coordinate_transformation_mode="asymmetric", nearest_mode="floor")


def _int64(b, x):
    return b.node("Cast", [x], to=b.tensor_type(np.dtype(np.int64)))[0]


@register("Crop")
def _crop(b, n):
    a = n.attrs
    n.static("the crop window")
    h, w = n.out_shapes[0][2:]
    if a.center_crop:
        top = (n.in_shapes[0][2] - h) // 2
        left = (n.in_shapes[0][3] - w) // 2
    else:
        top, left = a.offset
    b.node("Slice", [n.inputs[0], b.ints([top, left], "starts"),
                     b.ints([top + h, left + w], "ends"), b.ints([2, 3], "axes")],
           outputs=n.outputs)


@register("SwapAxis")
def _swap_axis(b, n):
    perm = list(range(len(n.in_shapes[0])))
    d1, d2 = n.attrs.dim1 % len(perm), n.attrs.dim2 % len(perm)
    perm[d1], perm[d2] = perm[d2], perm[d1]
    b.node("Transpose", n.inputs, outputs=n.outputs, perm=perm)


@register("reverse")
def _reverse(b, n):
    axes = n.attrs.axis
    axes = [axes] if isinstance(axes, int) else list(axes)
    k = len(axes)
    b.node("Slice", [n.inputs[0], b.ints([-1] * k, "starts"), b.ints([-INT_MAX] * k, "ends"),
                     b.ints(axes, "axes"), b.ints([-1] * k, "steps")], outputs=n.outputs)


@register("shape_array")
def _shape_array(b, n):
    b.node("Shape", n.inputs, outputs=n.outputs)


@register("size_array")
def _size_array(b, n):
    size = b.node("Size", n.inputs)
    b.node("Reshape", [size[0], b.ints([1], "shape")], outputs=n.outputs)


@register("slice_like", "reshape_like")
def _like(b, n):
    """Both take their output shape from the second input: static here."""
    n.static(f"the output shape {n.out_shapes[0]}")
    if n.op_name == "reshape_like":
        b.node("Reshape", [n.inputs[0], b.ints(n.out_shapes[0], "shape")], outputs=n.outputs)
        return
    ndim = len(n.in_shapes[0])
    b.node("Slice", [n.inputs[0], b.ints([0] * ndim, "starts"),
                     b.ints(n.out_shapes[0], "ends"), b.ints(list(range(ndim)), "axes")],
           outputs=n.outputs)


@register("SequenceReverse")
def _sequence_reverse(b, n):
    a = n.attrs
    if a.axis != 0:
        raise n.unsupported(f"axis={a.axis}")
    if not a.use_sequence_length:
        b.node("Slice", [n.inputs[0], b.ints([-1], "starts"), b.ints([-INT_MAX], "ends"),
                         b.ints([0], "axes"), b.ints([-1], "steps")], outputs=n.outputs)
        return
    b.node("ReverseSequence", [n.inputs[0], _int64(b, n.inputs[1])], outputs=n.outputs,
           batch_axis=1, time_axis=0)


@register("depth_to_space", "space_to_depth")
def _depth_space(b, n):
    op = "DepthToSpace" if n.op_name == "depth_to_space" else "SpaceToDepth"
    extra = {"mode": "DCR"} if op == "DepthToSpace" else {}
    b.node(op, n.inputs, outputs=n.outputs, blocksize=int(n.attrs.block_size), **extra)


@register("_rnn_param_concat")
def _param_concat(b, n):
    b.node("Concat", n.inputs, outputs=n.outputs, axis=int(n.attrs.dim))


@register("_split_v2")
def _split_v2(b, n):
    a = n.attrs
    axis = a.axis % len(n.in_shapes[0])
    sizes = [s[axis] for s in n.out_shapes] if not a.squeeze_axis else \
        [1] * len(n.out_shapes)
    _split(b, n, [n.inputs[0], b.ints(sizes, "split")], axis, len(sizes), a.squeeze_axis)


@register("repeat")
def _repeat(b, n):
    a = n.attrs
    n.static("the repeated shape")
    x = n.inputs[0]
    axis = a.axis
    if axis is None:
        x = b.node("Reshape", [x, b.ints([-1], "shape")])[0]
        axis = 0
    ndim = len(n.in_shapes[0]) if a.axis is not None else 1
    axis %= ndim
    grown = b.node("Unsqueeze", [x, b.ints([axis + 1], "axes")])
    reps = [1] * (ndim + 1)
    reps[axis + 1] = int(a.repeats)
    tiled = b.node("Tile", [grown[0], b.ints(reps, "repeats")])
    b.node("Reshape", [tiled[0], b.ints(n.out_shapes[0], "shape")], outputs=n.outputs)


@register("take")
def _take(b, n):
    a = n.attrs
    axis = a.axis % len(n.in_shapes[0])
    size = n.in_shapes[0][axis]
    idx = _int64(b, n.inputs[1])
    if a.mode == "clip":
        idx = b.node("Clip", [idx, b.const(np.array(0, np.int64), "lo"),
                              b.const(np.array(size - 1, np.int64), "hi")])[0]
    elif a.mode == "wrap":
        idx = b.node("Mod", [idx, b.const(np.array(size, np.int64), "size")])[0]
    # mode='raise': MXNet checks the indices at run time; the model assumes them valid
    b.node("Gather", [n.inputs[0], idx], outputs=n.outputs, axis=axis)


@register("gather_nd")
def _gather_nd(b, n):
    nd = len(n.in_shapes[1])
    perm = list(range(1, nd)) + [0]  # MXNet indexes along axis 0 of the indices, ONNX -1
    idx = b.node("Transpose", [_int64(b, n.inputs[1])], perm=perm)
    b.node("GatherND", [n.inputs[0], idx[0]], outputs=n.outputs)


@register("one_hot")
def _one_hot(b, n):
    a = n.attrs
    values = b.const(np.array([a.off_value, a.on_value], dtype=n.out_dtypes[0]), "values")
    b.node("OneHot", [_int64(b, n.inputs[0]), b.const(np.array(a.depth, np.int64), "depth"),
                      values], outputs=n.outputs, axis=-1)


def _constant_of_shape(b, n, value, shape_input):
    b.node("ConstantOfShape", [shape_input], outputs=n.outputs,
           value=b.tensor_value(np.array([value], dtype=n.out_dtypes[0])))


@register("_zeros", "_ones", "_full")
def _filled(b, n):
    value = {"_zeros": 0, "_ones": 1}.get(n.op_name)
    if value is None:
        value = n.attrs.value
    _constant_of_shape(b, n, value, b.ints(n.out_shapes[0], "shape"))


@register("zeros_like", "ones_like")
def _filled_like(b, n):
    _constant_of_shape(b, n, 0 if n.op_name == "zeros_like" else 1,
                       b.node("Shape", n.inputs[:1])[0])


@register("_arange")
def _arange(b, n):
    a = n.attrs
    # without ``stop`` MXNet counts from 0 to ``start``
    values = np.arange(a.start, a.stop, a.step) if a.stop is not None else \
        np.arange(0, a.start, a.step)
    values = np.repeat(values, a.repeat).astype(n.out_dtypes[0])
    b.node("Identity", [b.const(values, "range")], outputs=n.outputs)


@register("_contrib_arange_like")
def _arange_like(b, n):
    a = n.attrs
    n.static("the range's length")
    shape = tuple(n.out_shapes[0])
    count = int(np.prod(shape))
    values = a.start + a.step * (np.arange(count) // a.repeat)
    b.node("Identity", [b.const(values.reshape(shape).astype(n.out_dtypes[0]), "range")],
           outputs=n.outputs)


def _heads_qkv(b, n):
    """``(L, N, H*3*D)`` (per head: query, key, value interleaved) as ``(3, N*H, L, D)``;
    returns it with ``(L, N, H, D)``."""
    length, batch, width = n.in_shapes[0]
    heads = int(n.attrs.heads)
    depth = width // (3 * heads)
    n.static("the attention's layout")
    qkv = b.node("Reshape", [n.inputs[0], b.ints([length, batch * heads, 3, depth], "shape")])
    return b.node("Transpose", qkv, perm=[2, 1, 0, 3])[0], (length, batch, heads, depth)


def _pick(b, qkv, which: int, hint: str) -> str:
    return b.node("Gather", [qkv, b.const(np.array(which, np.int64), hint)], axis=0)[0]


@register("_contrib_interleaved_matmul_selfatt_qk")
def _selfatt_qk(b, n):
    """``(L, N, H*3*D)`` -> ``(N*H, L, L)``: query / sqrt(D) times key transposed."""
    qkv, (_, _, _, depth) = _heads_qkv(b, n)
    q = b.node("Div", [_pick(b, qkv, 0, "q"), scalar(b, np.sqrt(depth), n.in_dtypes[0])])
    kt = b.node("Transpose", [_pick(b, qkv, 1, "k")], perm=[0, 2, 1])
    b.node("MatMul", [q[0], kt[0]], outputs=n.outputs)


@register("_contrib_interleaved_matmul_selfatt_valatt")
def _selfatt_valatt(b, n):
    """values of ``(L, N, H*3*D)`` weighted by the attention ``(N*H, L, L)`` ->
    ``(L, N, H*D)``."""
    qkv, (length, batch, heads, depth) = _heads_qkv(b, n)
    out = b.node("MatMul", [n.inputs[1], _pick(b, qkv, 2, "v")])  # (N*H, L, D)
    out = b.node("Transpose", out, perm=[1, 0, 2])                 # (L, N*H, D)
    b.node("Reshape", [out[0], b.ints([length, batch, heads * depth], "shape")],
           outputs=n.outputs)


# -- random draws (ONNX Runtime draws its own numbers: the same distribution, not the
# same values) --------------------------------------------------------------------------
@register("_random_uniform", "_random_normal")
def _random(b, n):
    a = n.attrs
    dtype = b.tensor_type(n.out_dtypes[0])
    if n.op_name == "_random_uniform":
        b.node("RandomUniform", [], outputs=n.outputs, low=float(a.low), high=float(a.high),
               shape=list(n.out_shapes[0]), dtype=dtype)
    else:
        b.node("RandomNormal", [], outputs=n.outputs, mean=float(a.loc), scale=float(a.scale),
               shape=list(n.out_shapes[0]), dtype=dtype)


@register("_random_uniform_like", "_random_normal_like")
def _random_like(b, n):
    a = n.attrs
    if n.op_name == "_random_uniform_like":
        b.node("RandomUniformLike", n.inputs[:1], outputs=n.outputs, low=float(a.low),
               high=float(a.high))
    else:
        b.node("RandomNormalLike", n.inputs[:1], outputs=n.outputs, mean=float(a.loc),
               scale=float(a.scale))
