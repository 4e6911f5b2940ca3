"""``gluon.contrib.rnn.rnn_cell.dynamic_unroll`` (one ``foreach``) gives what
``cell.unroll`` gives, imperatively and hybridized, with and without ``valid_length``,
and the same parameter gradients (as MXNet 1.9.1's test_contrib_unroll checks)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import gluon
from gluonlite.gluon.contrib.rnn.rnn_cell import dynamic_unroll


class Unrolled(gluon.HybridBlock):
    def __init__(self, cell_type, hidden, layout, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.cell = cell_type(hidden, prefix="rnn_")
        self.layout = layout

    def hybrid_forward(self, F, inputs, states, valid_length):
        if isinstance(valid_length, list) and not valid_length:
            valid_length = None
        return dynamic_unroll(self.cell, inputs, states, valid_length=valid_length,
                              layout=self.layout)


@pytest.mark.parametrize("cell_type,n_states", [(gluon.rnn.RNNCell, 1),
                                                (gluon.rnn.LSTMCell, 2),
                                                (gluon.rnn.GRUCell, 1)])
@pytest.mark.parametrize("layout", ["TNC", "NTC"])
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("hybrid", [False, True])
def test_matches_unroll(cell_type, n_states, layout, masked, hybrid):
    rng = np.random.RandomState(0)
    T, N, C, H = 4, 3, 5, 6
    shape = (T, N, C) if layout == "TNC" else (N, T, C)
    data = mx.nd.array(rng.randn(*shape))
    states = [mx.nd.array(rng.randn(N, H)) for _ in range(n_states)]
    valid = mx.nd.array([2, 4, 1]) if masked else None
    layer = Unrolled(cell_type, H, layout)
    layer.initialize(mx.init.Xavier())
    if hybrid:
        layer.hybridize()
    params = layer.collect_params()
    with mx.autograd.record():
        out, new_states = layer(data, states, valid if masked else [])
    out.backward()
    got_grads = {k: p.grad().asnumpy().copy() for k, p in params.items()}
    with mx.autograd.record():
        ref, ref_states = layer.cell.unroll(T, data, states, layout=layout,
                                            merge_outputs=True, valid_length=valid)
    ref.backward()
    np.testing.assert_allclose(out.asnumpy(), ref.asnumpy(), rtol=1e-5, atol=1e-6)
    assert len(new_states) == len(ref_states) == n_states
    for a, b in zip(new_states, ref_states):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-6)
    for k, p in params.items():
        np.testing.assert_allclose(got_grads[k], p.grad().asnumpy(), rtol=1e-4, atol=1e-6)
    if masked:  # padded steps are zero
        t_axis = layout.find("T")
        arr = np.moveaxis(out.asnumpy(), t_axis, 0)
        assert not arr[2:, 0].any() and not arr[1:, 2].any()
