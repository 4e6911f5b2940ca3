"""Focused tests of the fused ``RNN`` operator: dropout between layers, sequence
lengths, dtypes, shape inference and error messages."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.ops.registry import get_op
from gluonlite.ops.rnn import param_size

_rng = np.random.default_rng(3)


def _inputs(mode="lstm", layers=2, dirs=2, t_len=3, n=2, in_size=3, hid=2, dtype=np.float64):
    arrs = [_rng.standard_normal((t_len, n, in_size)),
            _rng.uniform(-0.5, 0.5, param_size(mode, layers, dirs, in_size, hid)),
            _rng.standard_normal((layers * dirs, n, hid))]
    if mode == "lstm":
        arrs.append(_rng.standard_normal((layers * dirs, n, hid)))
    return [mx.nd.array(a.astype(dtype), dtype=dtype) for a in arrs]


def _attrs(mode="lstm", layers=2, bidir=True, hid=2, **kw):
    return dict(state_size=hid, num_layers=layers, bidirectional=bidir, mode=mode, **kw)


def test_dropout_only_in_training():
    arrs = _inputs()
    base = mx.nd.RNN(*arrs, **_attrs()).asnumpy()
    with mx.autograd.predict_mode():
        pred = mx.nd.RNN(*arrs, **_attrs(p=0.5)).asnumpy()
    np.testing.assert_allclose(pred, base)
    mx.random.seed(1)
    with mx.autograd.train_mode():
        train = mx.nd.RNN(*arrs, **_attrs(p=0.5)).asnumpy()
    assert not np.allclose(train, base)


def test_dropout_gradient_uses_forward_masks():
    """Backward sees the forward's masks: compare with finite differences taken
    under the same seed (the same masks)."""
    arrs = _inputs(mode="gru", layers=3, dirs=1, t_len=2)
    attrs = _attrs(mode="gru", layers=3, bidir=False, p=0.4)
    head = _rng.uniform(-1, 1, (2, 2, 2))

    def loss(x):
        mx.random.seed(7)
        with mx.autograd.train_mode():
            out = mx.nd.RNN(mx.nd.array(x, dtype=np.float64), *arrs[1:], **attrs)
        return float((out.asnumpy() * head).sum())

    x = arrs[0]
    x.attach_grad()
    mx.random.seed(7)
    with mx.autograd.record(train_mode=True):
        out = mx.nd.RNN(x, *arrs[1:], **attrs)
    out.backward(mx.nd.array(head, dtype=np.float64))
    x0 = x.asnumpy()
    num = np.zeros_like(x0)
    eps = 1e-6
    for j in range(x0.size):
        xp_, xm = x0.copy(), x0.copy()
        xp_.reshape(-1)[j] += eps
        xm.reshape(-1)[j] -= eps
        num.reshape(-1)[j] = (loss(xp_) - loss(xm)) / (2 * eps)
    np.testing.assert_allclose(x.grad.asnumpy(), num, rtol=1e-5, atol=1e-8)


def test_sequence_length_pads_with_zeros_and_keeps_last_state():
    arrs = _inputs(mode="rnn_tanh", layers=1, t_len=4)
    lengths = mx.nd.array(np.array([2, 4]), dtype=np.int32)
    out, hy = mx.nd.RNN(*arrs, lengths, **_attrs("rnn_tanh", 1, state_outputs=True,
                                                  use_sequence_length=True))
    out = out.asnumpy()
    assert np.all(out[2:, 0] == 0)
    # forward direction: final state is the output at the last valid step
    np.testing.assert_allclose(hy.asnumpy()[0, 0], out[1, 0, :2])
    # reverse direction: final state is its output at t = 0
    np.testing.assert_allclose(hy.asnumpy()[1, 0], out[0, 0, 2:])
    # the full-length item matches a run without lengths
    full = mx.nd.RNN(*arrs, **_attrs("rnn_tanh", 1)).asnumpy()
    np.testing.assert_allclose(out[:, 1], full[:, 1])


def test_float32_keeps_dtype():
    arrs = _inputs(dtype=np.float32)
    outs = mx.nd.RNN(*arrs, **_attrs(state_outputs=True))
    assert [o.dtype for o in outs] == [np.float32] * 3
    assert [o.shape for o in outs] == [(3, 2, 4), (4, 2, 2), (4, 2, 2)]


def test_shape_inference_both_ways():
    op = get_op("RNN")
    attrs = op.parse_attrs(_attrs(state_outputs=True, hid=5))
    ins, outs = op.infer_shape(attrs, [(3, 2, 4), None, None, None])
    assert ins == [(3, 2, 4), (1120,), (4, 2, 5), (4, 2, 5)]   # MXNet's numbers
    assert outs == [(3, 2, 10), (4, 2, 5), (4, 2, 5)]
    ins, _ = op.infer_shape(attrs, [None, None, (4, 2, 5), None])
    assert ins[0] == (0, 2, 0)
    assert op.output_names(attrs) == ("output", "state_output", "statecell_output")
    assert op.num_visible_outputs(op.parse_attrs(_attrs(p=0.2))) == 1


@pytest.mark.parametrize("bad,message", [
    (dict(params=5), "parameters must have shape"),
    (dict(state=(1, 2, 2)), "states must have shape"),
    (dict(projection_size=2, mode="gru"), "projection_size is only supported for mode"),
])
def test_errors_name_operator(bad, message):
    arrs = _inputs()
    attrs = _attrs()
    if "params" in bad:
        arrs[1] = mx.nd.zeros((bad["params"],), dtype=np.float64)
    if "state" in bad:
        arrs[2] = mx.nd.zeros(bad["state"], dtype=np.float64)
    if "projection_size" in bad:
        attrs.update(bad)
        arrs = arrs[:3]
    with pytest.raises(MXNetError, match=message) as err:
        mx.nd.RNN(*arrs, **attrs)
    assert "RNN" in str(err.value)


def test_rnn_param_concat_shape_inference():
    op = get_op("_rnn_param_concat")
    attrs = op.parse_attrs(dict(num_args=2, dim=1))
    assert op.infer_shape(attrs, [(3, 4), (0, 2)]) == ([(3, 4), (3, 2)], [(3, 6)])
    assert op.infer_shape(attrs, [(3, 4), None])[0] == [(3, 4), (3, 0)]
