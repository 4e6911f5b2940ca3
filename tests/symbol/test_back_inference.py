"""Shapes that flow back from known outputs, and what stays unknown, as in MXNet 1.9.1.

Expected values are MXNet's (its test_infer_shape.py cases and runs of
``infer_shape_partial`` in the reference environment).
"""
import gluonlite as mx


def _args(sym, **shapes):
    arg_shapes, _, _ = sym.infer_shape(**shapes)
    return dict(zip(sym.list_arguments(), arg_shapes))


def test_slice_channel_input_from_an_output():
    a = mx.sym.Variable("a", shape=(0, 10))
    b = mx.sym.SliceChannel(data=a, num_outputs=10, axis=1, squeeze_axis=True)
    assert _args(b[1] + mx.sym.Variable("c", shape=(5,)))["a"] == (5, 10)
    a = mx.sym.Variable("a", shape=(0, 15, 0))
    b = mx.sym.SliceChannel(data=a, num_outputs=3, squeeze_axis=False)
    assert _args(b[1] + mx.sym.Variable("c", shape=(3, 5, 2)))["a"] == (3, 15, 2)


def test_convolution_input_from_its_output():
    a = mx.sym.Variable("a", shape=(0, 10, 0, 0))
    b = mx.sym.Convolution(data=a, num_filter=21, kernel=(3, 3), dilate=(1, 1), pad=(1, 1))
    assert _args(b + mx.sym.Variable("c", shape=(5, 21, 32, 32)))["a"] == (5, 10, 32, 32)


def test_concat_inputs_from_the_output():
    a = mx.sym.Variable("a", shape=(0, 10))
    b = mx.sym.Variable("b", shape=(0, 5))
    d = mx.sym.Variable("d", shape=(2, 0)) + mx.sym.Concat(a, b, num_args=2, dim=1)
    assert _args(d) == {"d": (2, 15), "a": (2, 10), "b": (2, 5)}
    # lengths along the axis are not inferred backward: MXNet leaves a = (2, 0) unknown
    a = mx.sym.Variable("a", shape=(2, 0))
    b = mx.sym.Variable("b", shape=(2, 4))
    d = mx.sym.Variable("d", shape=(2, 9)) + mx.sym.Concat(a, b, num_args=2, dim=1)
    assert d.infer_shape() == (None, None, None)


def test_identity_with_attr_like_rhs_constrains_backward():
    w = mx.sym.Variable("weight")
    wt = mx.sym.broadcast_add(w, mx.sym.Variable("wshift", shape=(1,)))
    wt = mx.sym._internal._identity_with_attr_like_rhs(wt, w)
    net = mx.sym.FullyConnected(data=mx.sym.Variable("data"), weight=wt, num_hidden=11,
                                no_bias=True)
    assert _args(net, data=(7, 100))["weight"] == (11, 100)


def test_unknown_data_leaves_layers_unknown():
    data, prev = mx.sym.Variable("data"), mx.sym.Variable("prevstate")
    x2h = mx.sym.FullyConnected(data=data, name="x2h", num_hidden=128)
    h2h = mx.sym.FullyConnected(data=prev, name="h2h", num_hidden=128)
    out = mx.sym.Activation(mx.sym.elemwise_add(x2h, h2h), act_type="relu")
    assert out.infer_shape(data=(10, 64)) == (None, None, None)
    args, outs, _ = out.infer_shape_partial(data=(10, 64))
    args = dict(zip(out.list_arguments(), args))
    assert args["x2h_weight"] == (128, 64) and args["h2h_weight"] == ()
    flat = mx.sym.Flatten(mx.sym.Variable("d"))
    assert flat.infer_shape_partial(d=(0, 4, 4, 4))[1] == [()]
    emb = mx.sym.Embedding(mx.sym.Variable("i"), input_dim=3, output_dim=2)
    assert emb.infer_shape_partial()[0] == [(), ()]


def test_gen_atomic_symbol_is_the_bare_operator():
    """As MXNet 1.9.1 gives it: no inputs, no name, every output of the head's operator."""
    data, p = mx.sym.Variable("data"), mx.sym.Variable("param")
    h0, h1 = mx.sym.Variable("h0"), mx.sym.Variable("h1")
    s = mx.sym.RNN(data, p, h0, h1, state_size=10, num_layers=2, bidirectional=True,
                   state_outputs=True, mode="lstm")
    atom = s._gen_atomic_symbol()
    assert atom.list_arguments() == []
    assert atom.list_outputs() == ["output", "state_output", "statecell_output"]
    assert atom.attr_dict()[""]["mode"] == "lstm"
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")._gen_atomic_symbol()
    assert fc.list_outputs() == ["output"] and fc.list_arguments() == []
