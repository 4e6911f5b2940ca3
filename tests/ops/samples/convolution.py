"""Samples for ``Convolution`` (1-D, 2-D, 3-D, groups, dilation, stride, pad)."""
import itertools

import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(31)


def _x(*shape):
    return _rng.standard_normal(shape)


def _tup(v, nd, d):
    return tuple(v) if v else (d,) * nd


def conv_ref(x, w, b=None, kernel=(), stride=(), dilate=(), pad=(), num_filter=1,
             num_group=1, no_bias=False, **_):
    """Direct convolution: one einsum per kernel offset and group."""
    nd = len(kernel)
    s, d, p = _tup(stride, nd, 1), _tup(dilate, nd, 1), _tup(pad, nd, 0)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(a, a) for a in p])
    out = [(xp.shape[2 + i] - d[i] * (kernel[i] - 1) - 1) // s[i] + 1 for i in range(nd)]
    n, c = x.shape[:2]
    cg, fg = c // num_group, num_filter // num_group
    y = np.zeros((n, num_filter) + tuple(out))
    for g in range(num_group):
        for off in itertools.product(*[range(k) for k in kernel]):
            sl = tuple(slice(o * dd, o * dd + (m - 1) * ss + 1, ss)
                       for o, dd, m, ss in zip(off, d, out, s))
            patch = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + sl]
            wk = w[(slice(g * fg, (g + 1) * fg), slice(None)) + off]
            y[:, g * fg:(g + 1) * fg] += np.einsum("nc...,fc->nf...", patch, wk)
    if not no_bias and b is not None:
        y += b.reshape((1, -1) + (1,) * nd)
    return y


SAMPLES = {
    "Convolution": [
        Sample([_x(2, 3, 5, 5), _x(4, 3, 3, 3), _x(4)], dict(kernel=(3, 3), num_filter=4),
               ref=conv_ref),
        Sample([_x(1, 4, 6, 5), _x(4, 2, 2, 3), _x(4)],
               dict(kernel=(2, 3), num_filter=4, num_group=2, stride=(2, 1), pad=(1, 1),
                    dilate=(1, 2)), ref=conv_ref, name="group_dilate"),
        Sample([_x(2, 2, 7), _x(3, 2, 3)],
               dict(kernel=(3,), num_filter=3, stride=(2,), pad=(1,), no_bias=True),
               ref=conv_ref, name="1d"),
        Sample([_x(1, 2, 3, 4, 3), _x(2, 2, 2, 2, 2), _x(2)],
               dict(kernel=(2, 2, 2), num_filter=2, pad=(0, 1, 0), stride=(1, 2, 1)),
               ref=conv_ref, name="3d"),
        Sample([_x(2, 3, 4, 4), _x(3, 1, 3, 3)],
               dict(kernel=(3, 3), num_filter=3, num_group=3, no_bias=True, pad=(1, 1)),
               ref=conv_ref, infer_from=[0], name="depthwise_infer"),
        # data gradient paths: few filters (by kernel rows) and many filters (wide columns)
        Sample([_x(2, 3, 8), _x(2, 3, 3)], dict(kernel=(3,), num_filter=2, dilate=(2,),
                                                no_bias=True), ref=conv_ref, name="1d_rows"),
        Sample([_x(2, 1, 4, 5), _x(4, 1, 2, 2), _x(4)],
               dict(kernel=(2, 2), num_filter=4, pad=(1, 0)), ref=conv_ref, name="2d_wide"),
        # pixel-major columns (``_conv_rows``: one group, C * K >= 2 F): strides,
        # dilation, uneven pads, 1-D, float32 (no bias), a gradient of the data alone
        Sample([_x(2, 3, 7, 6), _x(2, 3, 3, 2), _x(2)],
               dict(kernel=(3, 2), num_filter=2, stride=(2, 1), dilate=(1, 2), pad=(1, 0)),
               ref=conv_ref, name="rows_stride_dilate"),
        Sample([_x(2, 4, 9), _x(3, 4, 3), _x(3)],
               dict(kernel=(3,), num_filter=3, stride=(2,), pad=(1,)), ref=conv_ref,
               name="rows_1d"),
        Sample([_x(3, 5, 6, 6).astype(np.float32), _x(4, 5, 3, 3).astype(np.float32)],
               dict(kernel=(3, 3), num_filter=4, pad=(1, 1), no_bias=True), ref=conv_ref,
               rtol=1e-5, atol=1e-5, grad=False, name="rows_f32"),
        Sample([_x(2, 4, 5, 5), _x(2, 4, 3, 3), _x(2)],
               dict(kernel=(3, 3), num_filter=2, pad=(2, 1)), ref=conv_ref, grad=[0],
               name="rows_data_grad"),
        # many rows per filter but fewer output pixels than filters: channel-first
        Sample([_x(1, 8, 2, 2), _x(6, 8, 3, 3), _x(6)],
               dict(kernel=(3, 3), num_filter=6, pad=(1, 1)), ref=conv_ref,
               name="few_pixels_many_filters"),
        # batch-first (``_chunked.use_batch_first``): few column rows, >= 128 pixels
        Sample([_x(2, 1, 13, 13), _x(8, 1, 2, 2), _x(8)],
               dict(kernel=(2, 2), num_filter=8), ref=conv_ref, name="batch_first"),
        Sample([_x(2, 2, 12, 12), _x(6, 2, 3, 1), _x(6)],
               dict(kernel=(3, 1), num_filter=6, pad=(1, 0)), ref=conv_ref, grad=[1, 2],
               name="batch_first_weight_grad"),
        # plain 1x1 with 256 weights and few pixels: per-item GEMMs (``_chunked``)
        Sample([_x(2, 16, 3, 3), _x(16, 16, 1, 1), _x(16)],
               dict(kernel=(1, 1), num_filter=16), ref=conv_ref, name="pointwise_small"),
        # depthwise (``_depthwise``: num_group == channels == num_filter): strides,
        # padding, dilation, 1-D and 3-D, float32, one gradient at a time
        Sample([_x(2, 3, 6, 5), _x(3, 1, 3, 3), _x(3)],
               dict(kernel=(3, 3), num_filter=3, num_group=3, pad=(1, 1)), ref=conv_ref,
               name="depthwise_same"),
        Sample([_x(2, 4, 7, 6), _x(4, 1, 3, 2), _x(4)],
               dict(kernel=(3, 2), num_filter=4, num_group=4, stride=(2, 3), pad=(1, 2),
                    dilate=(1, 2)), ref=conv_ref, name="depthwise_stride_dilate"),
        Sample([_x(1, 2, 7, 7), _x(2, 1, 2, 2)],
               dict(kernel=(2, 2), num_filter=2, num_group=2, no_bias=True), ref=conv_ref,
               name="depthwise_no_pad"),
        Sample([_x(2, 3, 9), _x(3, 1, 3), _x(3)],
               dict(kernel=(3,), num_filter=3, num_group=3, stride=(2,), pad=(2,),
                    dilate=(2,)), ref=conv_ref, name="depthwise_1d"),
        Sample([_x(1, 2, 4, 3, 5), _x(2, 1, 2, 2, 3), _x(2)],
               dict(kernel=(2, 2, 3), num_filter=2, num_group=2, pad=(1, 0, 1),
                    stride=(1, 2, 1)), ref=conv_ref, name="depthwise_3d"),
        # (positive values: no cancellation, so float32 CPU and GPU sums agree to 1e-5)
        Sample([np.abs(_x(3, 4, 6, 6)).astype(np.float32),
                np.abs(_x(4, 1, 3, 3)).astype(np.float32), np.abs(_x(4)).astype(np.float32)],
               dict(kernel=(3, 3), num_filter=4, num_group=4, pad=(1, 1), stride=(2, 2)),
               ref=conv_ref, rtol=1e-5, atol=1e-5, grad=False, name="depthwise_f32"),
        Sample([_x(2, 3, 5, 5), _x(3, 1, 3, 3)],
               dict(kernel=(3, 3), num_filter=3, num_group=3, pad=(1, 1), no_bias=True),
               ref=conv_ref, grad=[0], name="depthwise_data_grad"),
        Sample([_x(2, 3, 5, 5), _x(3, 1, 3, 3), _x(3)],
               dict(kernel=(3, 3), num_filter=3, num_group=3, pad=(1, 1), stride=(2, 2)),
               ref=conv_ref, grad=[1], name="depthwise_weight_grad"),
    ],
}
