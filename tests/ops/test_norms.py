"""LayerNorm, GroupNorm, InstanceNorm, L2Normalization: structure and errors."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.ops.registry import get_op


def _infer(name, attrs, shapes):
    op = get_op(name)
    return op.infer_shape(op.parse_attrs(attrs), shapes)


def test_layer_norm_shapes_and_visible_outputs():
    ins, outs = _infer("LayerNorm", {"axis": 1}, [(2, 3, 4), None, None])
    assert ins[1:] == [(3,), (3,)] and outs == [(2, 3, 4), (2, 1, 4), (2, 1, 4)]
    x = mx.nd.array(np.random.default_rng(0).standard_normal((2, 5)))
    g, b = mx.nd.ones((5,)), mx.nd.zeros((5,))
    assert isinstance(mx.nd.LayerNorm(x, g, b), mx.nd.NDArray)
    out, mean, std = mx.nd.LayerNorm(x, g, b, output_mean_var=True)
    xn = x.asnumpy()
    np.testing.assert_allclose(std.asnumpy()[:, 0], np.sqrt(xn.var(-1) + 1e-5), rtol=1e-6)
    with pytest.raises(MXNetError, match="LayerNorm"):
        _infer("LayerNorm", {}, [(2, 3, 4), (3,), None])


def test_group_norm_per_group_parameters():
    ins, outs = _infer("GroupNorm", {"num_groups": 2}, [(2, 4, 3), None, None])
    assert ins[1:] == [(2,), (2,)] and outs[1:] == [(2, 2), (2, 2)]
    with pytest.raises(MXNetError, match="divisible"):
        _infer("GroupNorm", {"num_groups": 3}, [(2, 4, 3), None, None])
    with pytest.raises(MXNetError, match="GroupNorm"):
        mx.nd.GroupNorm(mx.nd.ones((2, 4)), mx.nd.ones((1,)), mx.nd.zeros((1,)))


def test_instance_norm_needs_rank_3():
    ins, outs = _infer("InstanceNorm", {}, [(2, 3, 4, 5), None, None])
    assert ins[1:] == [(3,), (3,)] and outs == [(2, 3, 4, 5), (2, 3), (2, 3)]
    with pytest.raises(MXNetError, match="InstanceNorm"):
        mx.nd.InstanceNorm(mx.nd.ones((2, 3)), mx.nd.ones((3,)), mx.nd.zeros((3,)))
    assert get_op("InstanceNorm").num_visible_outputs(get_op("InstanceNorm").parse_attrs({})) == 1


@pytest.mark.parametrize("mode,norm_shape", [("instance", (2,)), ("channel", (2, 4, 5)),
                                             ("spatial", (2, 3))])
def test_l2_normalization_modes(mode, norm_shape):
    _, outs = _infer("L2Normalization", {"mode": mode}, [(2, 3, 4, 5)])
    assert outs == [(2, 3, 4, 5), norm_shape]


def test_l2_normalization_errors():
    with pytest.raises(MXNetError, match="L2Normalization"):
        mx.nd.L2Normalization(mx.nd.ones((2, 3)), mode="channel")
    with pytest.raises(MXNetError, match="L2Normalization"):
        mx.nd.L2Normalization(mx.nd.ones((2, 3)), mode="bogus")
    y = mx.nd.L2Normalization(mx.nd.array([[3.0, 4.0]]))
    np.testing.assert_allclose(y.asnumpy(), [[0.6, 0.8]], rtol=1e-6)
    # 1-D data: every element is its own instance (as in MXNet)
    np.testing.assert_allclose(mx.nd.L2Normalization(mx.nd.array([3.0, -4.0])).asnumpy(),
                               [1.0, -1.0], rtol=1e-6)
