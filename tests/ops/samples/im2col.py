"""Samples for ``im2col`` and ``col2im`` (NumPy references written element by element;
MXNet 1.9.1's values are checked in ``test_legacy_layers_mxnet.py``)."""
import itertools

import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(47)


def _geometry(spatial, kernel, stride, dilate, pad):
    nd = len(kernel)
    stride = tuple(stride) or (1,) * nd
    dilate = tuple(dilate) or (1,) * nd
    pad = tuple(pad) or (0,) * nd
    out = tuple((s + 2 * p - d * (k - 1) - 1) // st + 1
                for s, k, st, d, p in zip(spatial, kernel, stride, dilate, pad))
    return stride, dilate, pad, out


def _windows(spatial, kernel, stride, dilate, pad):
    """(row offset index, column index, input position or None) for every column entry."""
    stride, dilate, pad, out = _geometry(spatial, kernel, stride, dilate, pad)
    for ki, k in enumerate(itertools.product(*(range(v) for v in kernel))):
        for pi, o in enumerate(itertools.product(*(range(v) for v in out))):
            pos = tuple(oo * st + kk * d - p
                        for oo, st, kk, d, p in zip(o, stride, k, dilate, pad))
            inside = all(0 <= q < s for q, s in zip(pos, spatial))
            yield ki, pi, pos if inside else None


def _im2col_ref(x, kernel, stride=(), dilate=(), pad=()):
    n, c = x.shape[:2]
    kk = int(np.prod(kernel))
    out = _geometry(x.shape[2:], kernel, stride, dilate, pad)[3]
    cols = np.zeros((n, c * kk, int(np.prod(out))), dtype=x.dtype)
    for ki, pi, pos in _windows(x.shape[2:], kernel, stride, dilate, pad):
        if pos is not None:
            for ch in range(c):
                cols[:, ch * kk + ki, pi] = x[(slice(None), ch) + pos]
    return cols


def _col2im_ref(cols, output_size, kernel, stride=(), dilate=(), pad=()):
    n = cols.shape[0]
    kk = int(np.prod(kernel))
    c = cols.shape[1] // kk
    img = np.zeros((n, c) + tuple(output_size), dtype=cols.dtype)
    for ki, pi, pos in _windows(output_size, kernel, stride, dilate, pad):
        if pos is not None:
            for ch in range(c):
                img[(slice(None), ch) + pos] += cols[:, ch * kk + ki, pi]
    return img


_WINDOWS = [
    ((2, 2, 5, 6), dict(kernel=(3, 3)), "plain_2d"),
    ((1, 3, 6, 5), dict(kernel=(2, 3), stride=(2, 1), dilate=(1, 2), pad=(1, 2)),
     "stride_dilate_pad_2d"),
    ((2, 2, 7), dict(kernel=(3,), stride=(2,), pad=(1,)), "1d"),
    ((1, 2, 3, 4, 3), dict(kernel=(2, 2, 1), dilate=(1, 2, 1), pad=(0, 1, 1)), "3d"),
]


def _cols_shape(shape, attrs):
    out = _geometry(shape[2:], attrs["kernel"], attrs.get("stride", ()),
                    attrs.get("dilate", ()), attrs.get("pad", ()))[3]
    return (shape[0], shape[1] * int(np.prod(attrs["kernel"])), int(np.prod(out)))


SAMPLES = {
    "im2col": [Sample([_rng.standard_normal(shape)], attrs, ref=_im2col_ref, name=name)
               for shape, attrs, name in _WINDOWS] + [
        Sample([_rng.standard_normal((2, 3, 5, 5)).astype(np.float32)],
               dict(kernel=(2, 2), stride=(2, 2), pad=(1, 1)), ref=_im2col_ref, grad=False,
               name="float32"),
    ],
    "col2im": [Sample([_rng.standard_normal(_cols_shape(shape, attrs))],
                      dict(attrs, output_size=shape[2:]), ref=_col2im_ref, name=name)
               for shape, attrs, name in _WINDOWS] + [
        Sample([_rng.standard_normal((2, 12, 9)).astype(np.float32)],
               dict(output_size=(5, 5), kernel=(2, 2), stride=(2, 2), pad=(1, 1)),
               ref=_col2im_ref, grad=False, rtol=1e-5, atol=1e-6, name="float32"),
    ],
}
