"""``_RNNLayer._unfuse()`` (a stack of cells sharing the layer's parameters, as MXNet
1.9.1 builds it), the cells' reprs, and ``Context.default_ctx`` with exported cells
loaded back through ``SymbolBlock.imports``."""
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import gluon


@pytest.mark.parametrize("cls,kwargs", [
    ("LSTM", dict(num_layers=2, bidirectional=True)),
    ("LSTM", dict(num_layers=3, input_size=4)),
    ("GRU", dict(num_layers=2)),
    ("RNN", dict(activation="tanh", bidirectional=True)),
    ("RNN", dict(activation="relu", num_layers=2)),
])
def test_unfused_stack_shares_parameters_and_outputs(cls, kwargs):
    layer = getattr(gluon.rnn, cls)(3, prefix="rnn0_", **kwargs)
    stack = layer._unfuse()
    assert isinstance(stack, gluon.rnn.HybridSequentialRNNCell)
    assert stack.prefix == "rnn0_"
    fused_params = layer.collect_params()
    stack_params = stack.collect_params()
    assert list(stack_params.keys()) == list(fused_params.keys())
    assert all(stack_params[n] is p for n, p in fused_params.items())
    layer.initialize(mx.init.Uniform(0.5))
    x = mx.nd.array(np.random.default_rng(0).standard_normal((5, 2, 4)))
    fused_out = layer(x).asnumpy()
    stack_out = stack.unroll(5, x, layout="TNC", merge_outputs=True)[0].asnumpy()
    np.testing.assert_allclose(stack_out, fused_out, rtol=1e-5, atol=1e-6)


def test_unfused_structure_like_mxnet():
    layer = gluon.rnn.LSTM(4, num_layers=2, bidirectional=True, dropout=0.3,
                           prefix="lstm0_")
    stack = layer._unfuse()
    assert repr(stack) == (
        "HybridSequentialRNNCell(\n"
        "(0): BidirectionalCell(forward=LSTMCell(None -> 16), backward=LSTMCell(None -> 16))\n"
        "(1): DropoutCell(rate=0.3, axes=())\n"
        "(2): BidirectionalCell(forward=LSTMCell(8 -> 16), backward=LSTMCell(8 -> 16))\n"
        ")")
    assert list(stack._collect_params_with_prefix())[:2] == [
        "0.l_cell.i2h_weight", "0.l_cell.h2h_weight"]
    assert repr(gluon.rnn.RNN(3, activation="tanh")._unfuse()) == \
        "HybridSequentialRNNCell(\n(0): RNNCell(None -> 3, tanh)\n)"
    with pytest.raises(AssertionError, match="projection"):
        gluon.rnn.LSTM(4, projection_size=2)._unfuse()
    with pytest.raises(AssertionError, match="state clipping"):
        gluon.rnn.LSTM(4, state_clip_min=-1, state_clip_max=1)._unfuse()


def test_lstm_cpu_inference_all_ones():
    """MXNet's expected numbers for a 6-layer bidirectional LSTM with all-one weights."""
    expected = np.array([[[0.72045636, 0.72045636, 0.95215213, 0.95215213]] * 2,
                         [[0.95215213, 0.95215213, 0.72045636, 0.72045636]] * 2])
    x = mx.nd.ones((2, 2, 2))
    model = gluon.rnn.LSTM(2, num_layers=6, bidirectional=True)
    cells = model._unfuse()
    model.initialize(mx.init.One())
    np.testing.assert_allclose(model(x).asnumpy(), expected, rtol=1e-3, atol=1e-5)
    out = cells.unroll(2, x, layout="TNC", merge_outputs=True)[0].asnumpy()
    np.testing.assert_allclose(out, expected, rtol=1e-3, atol=1e-5)


def test_sequential_cell_repr():
    stack = gluon.rnn.SequentialRNNCell()
    assert repr(stack) == "SequentialRNNCell(\n\n)"
    stack.add(gluon.rnn.LSTMCell(3))
    inner = gluon.rnn.SequentialRNNCell()
    inner.add(gluon.rnn.GRUCell(2))
    stack.add(inner)
    assert repr(stack) == ("SequentialRNNCell(\n(0): LSTMCell(None -> 12)\n"
                           "(1): SequentialRNNCell(\n  (0): GRUCell(None -> 6)\n  )\n)")
    assert repr(gluon.rnn.RNNCell(3, activation="relu", input_size=2)) == \
        "RNNCell(2 -> 3, relu)"


def test_default_ctx_is_the_current_context_and_deprecated():
    with pytest.warns(DeprecationWarning, match="default_ctx has been deprecated"):
        assert mx.Context.default_ctx == mx.cpu(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with mx.cpu(2):
            assert mx.Context.default_ctx == mx.cpu(2)
            assert mx.cpu(0).default_ctx == mx.cpu(2)
        try:
            mx.Context.default_ctx = mx.cpu(3)
            assert mx.current_context() == mx.cpu(3)
            assert mx.nd.zeros((1,)).context == mx.cpu(3)
        finally:
            mx.Context.default_ctx = mx.cpu(0)
    assert mx.current_context() == mx.cpu(0)


@pytest.mark.parametrize("cell_cls", ["RNNCell", "LSTMCell", "GRUCell"])
def test_exported_cells_import_on_default_ctx(cell_cls, tmp_path):
    class Layer(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.cell = getattr(gluon.rnn, cell_cls)(hidden_size=1)

        def hybrid_forward(self, F, seq):
            return self.cell.unroll(inputs=seq, length=2, merge_outputs=True)[0]

    net = Layer()
    net.initialize()
    net.hybridize()
    x = mx.nd.ones((1, 2, 1))
    expected = net(x).asnumpy()
    path = str(tmp_path / "model")
    net.export(path, epoch=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        ctx = mx.Context.default_ctx
    block = gluon.SymbolBlock.imports(path + "-symbol.json", ["data"], path + "-0000.params",
                                      ctx=ctx)
    np.testing.assert_allclose(block(x).asnumpy(), expected, rtol=1e-6)
