"""Depthwise convolution path (``ops/_depthwise.py``) against the general layouts:
non-contiguous inputs, multi-block tensors, float32/float64, every gradient mask."""
import itertools

import numpy as np
import pytest

from gluonlite.ops import _depthwise
from gluonlite.ops import convolution as conv
from gluonlite.ops.registry import OpContext, get_op

_OC = OpContext(np, False, None)


def _attrs(c, kernel, stride, dilate, pad, no_bias):
    return get_op("Convolution").parse_attrs({
        "kernel": str(kernel), "stride": str(stride), "dilate": str(dilate),
        "pad": str(pad), "num_filter": str(c), "num_group": str(c), "no_bias": str(no_bias)})


def _both(monkeypatch, attrs, ins, dy, need):
    """Forward and backward through the depthwise path and through the general one."""
    y = conv._forward(_OC, attrs, ins, None)[0]
    g = conv._backward(_OC, attrs, ins, [y], [dy], need)
    with monkeypatch.context() as m:
        m.setattr(conv, "use_depthwise", lambda *a: False)
        y0 = conv._forward(_OC, attrs, ins, None)[0]
        g0 = conv._backward(_OC, attrs, ins, [y0], [dy], need)
    return (y, g), (y0, g0)


CASES = [((2, 3, 6, 6), (3, 3), (1, 1), (1, 1), (1, 1)),
         ((2, 4, 8, 7), (3, 3), (2, 2), (1, 1), (1, 1)),
         ((1, 2, 9, 8), (3, 2), (2, 3), (2, 1), (0, 2)),
         ((3, 2, 5, 5), (1, 1), (2, 2), (1, 1), (0, 0)),
         ((2, 3, 10), (5,), (3,), (1,), (2,)),
         # more than _MAX_PIXELS outputs per plane: the padded grids
         ((2, 3, 40, 33), (3, 3), (1, 1), (1, 1), (1, 1)),
         ((1, 2, 70, 67), (3, 3), (2, 2), (1, 1), (1, 1)),
         ((1, 2, 45, 41), (3, 2), (1, 2), (2, 1), (2, 0)),
         ((2, 2, 1100), (5,), (1,), (1,), (3,)),
         ((1, 2, 12, 12, 11), (3, 3, 3), (1, 1, 1), (1, 1, 1), (1, 1, 1)),
         # many channels: tiled masks too large to cache, padded grids too
         ((1, 300, 10, 10), (3, 3), (1, 1), (1, 1), (1, 1))]


@pytest.mark.parametrize("shape,kernel,stride,dilate,pad", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("blocks", [False, True])
def test_matches_general_path(monkeypatch, shape, kernel, stride, dilate, pad, dtype, blocks):
    if blocks:  # force the multi-block schedule (and two threads) on small tensors
        monkeypatch.setattr(_depthwise, "_WHOLE_MAX", 16)
        monkeypatch.setattr(_depthwise, "_BLOCK", 20)
        monkeypatch.setattr(_depthwise, "_PARALLEL_COPY", 1)
        _depthwise._grid.cache_clear()
    rng = np.random.default_rng(0)
    c = shape[1]
    wide = shape[:-1] + (2 * shape[-1],)
    x = rng.standard_normal(wide).astype(dtype)[..., ::2]           # a strided view
    assert not x.flags.c_contiguous
    ins = [x, rng.standard_normal((c, 1) + kernel).astype(dtype),
           rng.standard_normal(c).astype(dtype)]
    attrs = _attrs(c, kernel, stride, dilate, pad, False)
    assert _depthwise.use_depthwise(np, x, ins[1], c, (1,), ins[2])
    osz = conv._geometry(attrs).out_sizes("Convolution", shape[2:])
    dy = rng.standard_normal((shape[0], c) + osz).astype(dtype)
    # the weight gradient sums N * prod(osz) products, in another order on each path
    tol = (1e-5 if dtype == np.float32 else 1e-12) * np.sqrt(shape[0] * np.prod(osz))
    for need in itertools.product([True, False], repeat=3):
        (y, g), (y0, g0) = _both(monkeypatch, attrs, ins, dy, need)
        np.testing.assert_allclose(y, y0, rtol=tol, atol=tol)
        for a, b in zip(g, g0):
            assert (a is None) == (b is None)
            if a is not None:
                assert a.dtype == dtype
                np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
    _depthwise._grid.cache_clear()


def test_out_buffer_and_other_dtypes_fall_back():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 4, 4)).astype(np.float32)
    w = rng.standard_normal((3, 1, 3, 3)).astype(np.float32)
    attrs = _attrs(3, (3, 3), (1, 1), (1, 1), (1, 1), True)
    out = np.full((2, 3, 4, 4), np.nan, np.float32)
    res = conv._forward(_OC, attrs, [x, w], [out])[0]
    assert res is out
    np.testing.assert_allclose(out, conv._forward(_OC, attrs, [x, w], None)[0])
    big = np.zeros((1, 3, 64, 64), np.float32)
    assert _depthwise.use_depthwise(np, big, w, 3, (64, 64))
    assert _depthwise._geometry_grid(big, conv._geometry(attrs), (64, 64)).padded
    assert not _depthwise._geometry_grid(x, conv._geometry(attrs), (4, 4)).padded
    wide = np.zeros((1, 300, 10, 10), np.float32)
    assert _depthwise._geometry_grid(wide, conv._geometry(attrs), (10, 10)).padded
    assert not _depthwise.use_depthwise(np, big.astype(np.float16), w.astype(np.float16), 3,
                                        (64, 64))
    assert not _depthwise.use_depthwise(np, x, w.astype(np.float64), 3, (4, 4))
