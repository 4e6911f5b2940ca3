"""BatchNorm: running statistics, fix_gamma, hidden outputs, dtypes and errors."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.ops.registry import get_op

_M = float(np.float32(0.9))  # MXNet parses momentum as float32


def _setup(dtype="float64", shape=(4, 3, 2)):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape)
    c = shape[1]
    arrs = [mx.nd.array(x, dtype=dtype), mx.nd.array(rng.uniform(0.5, 1.5, c), dtype=dtype),
            mx.nd.array(rng.standard_normal(c), dtype=dtype),
            mx.nd.array(rng.standard_normal(c) * 0.1, dtype=dtype),
            mx.nd.array(rng.uniform(0.5, 2, c), dtype=dtype)]
    return x, arrs


def test_moving_stats_update_in_backward_only():
    x, (data, gamma, beta, mm, mv) = _setup()
    mm0, mv0 = mm.asnumpy().copy(), mv.asnumpy().copy()
    with mx.autograd.train_mode():
        mx.nd.BatchNorm(data, gamma, beta, mm, mv)
    np.testing.assert_array_equal(mm.asnumpy(), mm0)  # MXNet (CPU): forward alone keeps them
    data.attach_grad()
    with mx.autograd.record():
        y = mx.nd.BatchNorm(data, gamma, beta, mm, mv)
    np.testing.assert_array_equal(mm.asnumpy(), mm0)
    y.backward()
    mean, var = x.mean(axis=(0, 2)), x.var(axis=(0, 2))  # biased variance
    np.testing.assert_allclose(mm.asnumpy(), mm0 * _M + mean * (1 - _M), rtol=1e-12)
    np.testing.assert_allclose(mv.asnumpy(), mv0 * _M + var * (1 - _M), rtol=1e-12)


@pytest.mark.parametrize("attrs,train", [(dict(use_global_stats=True), True), ({}, False)])
def test_moving_stats_unchanged(attrs, train):
    _, (data, gamma, beta, mm, mv) = _setup()
    mm0, mv0 = mm.asnumpy().copy(), mv.asnumpy().copy()
    data.attach_grad()
    with mx.autograd.record(train_mode=train):
        y = mx.nd.BatchNorm(data, gamma, beta, mm, mv, **attrs)
    y.backward()
    np.testing.assert_allclose(mm.asnumpy(), mm0, rtol=1e-12)
    np.testing.assert_allclose(mv.asnumpy(), mv0, rtol=1e-12)


def test_fix_gamma_ignores_gamma_and_zeroes_its_gradient():
    _, (data, gamma, beta, mm, mv) = _setup()
    gamma.attach_grad()
    with mx.autograd.record():
        y = mx.nd.BatchNorm(data, gamma, beta, mm, mv)  # fix_gamma defaults to True
        y2 = mx.nd.BatchNorm(data, mx.nd.ones(gamma.shape, dtype=gamma.dtype), beta, mm, mv)
    np.testing.assert_allclose(y.asnumpy(), y2.asnumpy())
    y.backward()
    assert not gamma.grad.asnumpy().any()


def test_hidden_outputs_and_visible_counts():
    x, (data, gamma, beta, mm, mv) = _setup()
    op = get_op("BatchNorm")
    attrs = op.parse_attrs({})
    assert op.num_outputs(attrs) == 3 and op.num_visible_outputs(attrs) == 1
    assert op.aux_indices(attrs) == (3, 4)
    assert isinstance(mx.nd.BatchNorm(data, gamma, beta, mm, mv), mx.nd.NDArray)
    with mx.autograd.train_mode():
        out, mean, inv_std = mx.nd.BatchNorm(data, gamma, beta, mm, mv, output_mean_var=True)
    np.testing.assert_allclose(mean.asnumpy(), x.mean(axis=(0, 2)))
    np.testing.assert_allclose(inv_std.asnumpy(), 1 / np.sqrt(x.var(axis=(0, 2)) + 1e-3),
                               rtol=1e-6)
    _, mean_p, inv_p = mx.nd.BatchNorm(data, gamma, beta, mm, mv, output_mean_var=True)
    np.testing.assert_allclose(mean_p.asnumpy(), mm.asnumpy())
    np.testing.assert_allclose(inv_p.asnumpy(), 1 / np.sqrt(mv.asnumpy() + 1e-3), rtol=1e-6)


def test_float16_data_uses_float32_parameters():
    op = get_op("BatchNorm")
    attrs = op.parse_attrs({})
    ins, outs = op.infer_type(attrs, [np.dtype(np.float16)] + [None] * 4)
    assert ins[1:] == [np.dtype(np.float32)] * 4
    assert outs == [np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float32)]
    rng = np.random.default_rng(1)
    data = mx.nd.array(rng.standard_normal((4, 3, 2)), dtype="float16")
    params = [mx.nd.ones(3), mx.nd.zeros(3), mx.nd.zeros(3), mx.nd.ones(3)]
    with mx.autograd.train_mode():
        y = mx.nd.BatchNorm(data, *params)
    assert y.dtype == np.float16
    with pytest.raises(MXNetError, match="BatchNorm"):
        op.infer_type(attrs, [np.dtype(np.float64), np.dtype(np.float32), None, None, None])


def test_shape_inference_and_errors():
    op = get_op("BatchNorm")
    ins, outs = op.infer_shape(op.parse_attrs({"axis": -1}), [(2, 5, 7), None, None, None, None])
    assert ins[1:] == [(7,)] * 4 and outs == [(2, 5, 7), (7,), (7,)]
    with pytest.raises(MXNetError, match="BatchNorm"):
        op.infer_shape(op.parse_attrs({}), [(2, 3, 4), (4,), None, None, None])
    with pytest.raises(MXNetError, match="BatchNorm"):
        op.infer_shape(op.parse_attrs({"axis": 3}), [(2, 3, 4), None, None, None, None])


def test_attribute_defaults_and_strings():
    op = get_op("BatchNorm")
    attrs = op.parse_attrs({"fix_gamma": "False", "eps": "1e-5", "momentum": "0.99"})
    assert attrs.fix_gamma is False and attrs.eps == 1e-5 and attrs.use_global_stats is False
    assert attrs.axis == 1 and attrs.min_calib_range is None
    assert list(op.attrs) == ["eps", "momentum", "fix_gamma", "use_global_stats",
                              "output_mean_var", "axis", "cudnn_off", "min_calib_range",
                              "max_calib_range"]


def test_shared_layer_called_twice_updates_twice():
    x, (data, gamma, beta, mm, mv) = _setup()
    mm0 = mm.asnumpy().copy()
    data.attach_grad()
    with mx.autograd.record():
        y1 = mx.nd.BatchNorm(data, gamma, beta, mm, mv)
        y2 = mx.nd.BatchNorm(data, gamma, beta, mm, mv)
    mx.autograd.backward([y1, y2])
    mean = x.mean(axis=(0, 2))
    np.testing.assert_allclose(mm.asnumpy(), mm0 * _M * _M + mean * (1 - _M) * (1 + _M),
                               rtol=1e-12)
