"""More Block scenarios (save/load, SymbolBlock, nn layers); see ``block_scenarios.py``,
which registers them in its ``SCENARIOS``."""
import contextlib
import io
import os

import numpy as np

try:
    from .block_scenarios import _B, _pshapes, scenario
except ImportError:  # run as a top-level module by the fixture script
    from block_scenarios import _B, _pshapes, scenario


# -- save / load --------------------------------------------------------------------------------
def _saved_net(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    net.initialize()
    net(mx.nd.ones((1, 3, 4, 4)))
    path = os.path.join(tmp, "net.params")
    net.save_parameters(path)
    return B, net, path


@scenario
def sc_save_parameters_keys(mx, tmp):
    _, _, path = _saved_net(mx, tmp)
    return list(mx.nd.load(path).keys())


@scenario
def sc_load_parameters_roundtrip(mx, tmp):
    B, net, path = _saved_net(mx, tmp)
    other = B["Net"]()
    other.load_parameters(path)
    same = [bool((p.data() == q.data()).asnumpy().all()) for p, q in
            zip(net.collect_params().values(), other.collect_params().values())]
    return [same, _pshapes(other.collect_params())]


@scenario
def sc_load_parameters_missing(mx, tmp):
    B, net, path = _saved_net(mx, tmp)
    d = mx.nd.load(path)
    del d["output.bias"]
    mx.nd.save(path, d)
    B["Net"]().load_parameters(path)


@scenario
def sc_load_parameters_allow_missing(mx, tmp):
    B, net, path = _saved_net(mx, tmp)
    d = mx.nd.load(path)
    del d["output.bias"]
    mx.nd.save(path, d)
    other = B["Net"]()
    other.load_parameters(path, allow_missing=True)
    return _pshapes(other.collect_params())


@scenario
def sc_load_parameters_extra(mx, tmp):
    B, net, path = _saved_net(mx, tmp)
    d = mx.nd.load(path)
    d["extra.weight"] = mx.nd.ones((2,))
    mx.nd.save(path, d)
    B["Net"]().load_parameters(path)


@scenario
def sc_load_parameters_extra_leaf(mx, tmp):
    B, net, path = _saved_net(mx, tmp)
    d = mx.nd.load(path)
    d["output.extra"] = mx.nd.ones((2,))
    mx.nd.save(path, d)
    B["Net"]().output.load_parameters(path, ignore_extra=True)


@scenario
def sc_load_parameters_shape_mismatch(mx, tmp):
    B, net, path = _saved_net(mx, tmp)
    other = B["Net"]()
    other.initialize()
    other(mx.nd.ones((1, 5, 4, 4)))
    other.load_parameters(path)


@scenario
def sc_load_parameters_dtype(mx, tmp):
    B, net, path = _saved_net(mx, tmp)
    other = B["Net"]()
    other.cast("float64")
    other.load_parameters(path, cast_dtype=True)
    third = B["Net"]()
    third.cast("float64")
    third.load_parameters(path, cast_dtype=True, dtype_source="saved")
    return [[str(np.dtype(p.dtype)) for p in other.collect_params().values()],
            [str(np.dtype(p.dtype)) for p in third.collect_params().values()]]


@scenario
def sc_load_parameters_dtype_mismatch(mx, tmp):
    B, net, path = _saved_net(mx, tmp)
    other = B["Net"]()
    other.cast("float64")
    other.load_parameters(path)


@scenario
def sc_legacy_save_params(mx, tmp):
    B, net, _ = _saved_net(mx, tmp)
    path = os.path.join(tmp, "legacy.params")
    net.save_params(path)
    keys = list(mx.nd.load(path).keys())
    other = B["Net"]()
    other.load_parameters(path)
    third = B["Net"]()
    third.load_params(path)
    return [keys, _pshapes(other.collect_params()),
            bool((other.hidden.weight.data() == net.hidden.weight.data()).asnumpy().all())]


@scenario
def sc_legacy_collect_params_save(mx, tmp):
    B, net, _ = _saved_net(mx, tmp)
    path = os.path.join(tmp, "legacy.params")
    net.collect_params().save(path)
    B["Net"]().load_parameters(path)


@scenario
def sc_save_deduplicate(mx, tmp):
    B = _B(mx)
    s = B["HSeq"]()
    with s.name_scope():
        a = B["Lin"](3, in_units=3)
        s.add(a, B["Lin"](3, in_units=3, params=a.params))
    s.initialize()
    p1, p2 = os.path.join(tmp, "a.params"), os.path.join(tmp, "b.params")
    s.save_parameters(p1)
    s.save_parameters(p2, deduplicate=True)
    t = B["HSeq"]()
    with t.name_scope():
        a = B["Lin"](3, in_units=3)
        t.add(a, B["Lin"](3, in_units=3, params=a.params))
    t.load_parameters(p2)
    return [list(mx.nd.load(p1).keys()), list(mx.nd.load(p2).keys()),
            _pshapes(t.collect_params())]


# -- SymbolBlock ---------------------------------------------------------------------------------
def _graph(mx):
    data = mx.sym.var("data")
    c = mx.sym.Convolution(data, num_filter=4, kernel=(3, 3), name="conv")
    b = mx.sym.BatchNorm(c, name="bn")
    f = mx.sym.FullyConnected(mx.sym.relu(b, name="act"), num_hidden=3, name="fc")
    return data, b, f


@scenario
def sc_symbolblock_params(mx, tmp):
    data, b, f = _graph(mx)
    sb = mx.gluon.SymbolBlock(f, data)
    return [sb.prefix, sb.name, _pshapes(sb.params), list(sb._reg_params.keys()), repr(sb),
            [str(np.dtype(p.dtype)) for p in sb.params.values()]]


@scenario
def sc_symbolblock_forward(mx, tmp):
    data, b, f = _graph(mx)
    sb = mx.gluon.SymbolBlock([f, b], [data])
    sb.initialize()
    outs = sb(mx.nd.ones((2, 1, 5, 5)))
    return [type(outs).__name__, [list(o.shape) for o in outs], _pshapes(sb.params), repr(sb)]


@scenario
def sc_symbolblock_common_prefix(mx, tmp):
    data = mx.sym.var("data")
    with mx.name.Prefix("model0_"):
        f = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
        g = mx.sym.FullyConnected(f, num_hidden=2, name="fd")
    sb = mx.gluon.SymbolBlock(g, data)
    sb.initialize()
    sb(mx.nd.ones((1, 4)))
    path = os.path.join(tmp, "sb.params")
    sb.save_parameters(path)
    one = mx.gluon.SymbolBlock(f, data)
    return [list(sb._reg_params.keys()), list(mx.nd.load(path).keys()),
            list(one._reg_params.keys())]


@scenario
def sc_symbolblock_not_variable(mx, tmp):
    data, b, f = _graph(mx)
    mx.gluon.SymbolBlock(f, b)


@scenario
def sc_symbolblock_symbol_call(mx, tmp):
    data, b, f = _graph(mx)
    sb = mx.gluon.SymbolBlock(f, data)
    out = sb(mx.sym.var("img"))
    return [out.list_arguments(), out.list_auxiliary_states()]


@scenario
def sc_symbolblock_in_network(mx, tmp):
    B = _B(mx)
    data, b, f = _graph(mx)
    s = B["HSeq"]()
    with s.name_scope():
        s.add(mx.gluon.SymbolBlock(b, data), B["Lin"](2))
    s.initialize()
    s.hybridize()
    out = s(mx.nd.ones((1, 1, 5, 5)))
    return [list(out.shape), list(s.collect_params().keys()),
            list(s._collect_params_with_prefix().keys())]


@scenario
def sc_symbolblock_export_imports(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    net.initialize()
    net.hybridize()
    x = mx.nd.ones((1, 3, 6, 6))
    want = net(x)
    prefix = os.path.join(tmp, "net")
    net.export(prefix)
    sb = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"],
                                      prefix + "-0000.params")
    got = sb(x)
    return [list(sb.params.keys()), float(np.abs((got - want).asnumpy()).max()) < 1e-5]


@scenario
def sc_symbolblock_imports_no_params(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    net.initialize()
    net.hybridize()
    net(mx.nd.ones((1, 3, 6, 6)))
    prefix = os.path.join(tmp, "net")
    net.export(prefix)
    sb = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", "data")
    return _pshapes(sb.params)


@scenario
def sc_symbolblock_imports_missing(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    net.initialize()
    net.hybridize()
    net(mx.nd.ones((1, 3, 6, 6)))
    prefix = os.path.join(tmp, "net")
    net.export(prefix)
    d = mx.nd.load(prefix + "-0000.params")
    del d["arg:net0_lin0_bias"]
    mx.nd.save(prefix + "-0000.params", d)
    mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")


# -- with the nn layers -------------------------------------------------------------------------
def _nn_net(mx):
    nn = mx.gluon.nn
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(8, activation="relu"))
        inner = nn.HybridSequential()
        with inner.name_scope():
            inner.add(nn.Dense(4), nn.Dense(2, in_units=4))
        net.add(inner)
    return net


@scenario
def sc_nn_names_and_repr(mx, tmp):
    net = _nn_net(mx)
    return [list(net.collect_params().keys()), list(net._collect_params_with_prefix().keys()),
            repr(net)]


@scenario
def sc_nn_summary_skips_containers(mx, tmp):
    net = _nn_net(mx)
    net.initialize()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        net.summary(mx.nd.ones((3, 5)))
    return buf.getvalue()


@scenario
def sc_nn_plain_sequential_hybridize(mx, tmp):
    nn = mx.gluon.nn
    B = _B(mx)
    seq = nn.Sequential()
    with seq.name_scope():
        seq.add(nn.Dense(3), B["Counting"]())
    seq.initialize()
    seq.hybridize()
    x = mx.nd.ones((2, 4))
    seq(x)
    seq(x)
    return [seq[1].calls, seq[0]._active, list(seq(x).shape)]


@scenario
def sc_symbolblock_imports_keeps_saved_dtype(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    net.initialize()
    net.cast("float64")
    net.hybridize()
    x = mx.nd.ones((1, 3, 6, 6), dtype="float64")
    want = net(x)
    prefix = os.path.join(tmp, "net64")
    net.export(prefix)
    sb = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"],
                                      prefix + "-0000.params")
    got = sb(x)
    bare = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"])
    return [[str(np.dtype(p.dtype)) for p in sb.params.values()], str(np.dtype(got.dtype)),
            float(np.abs((got - want).asnumpy()).max()) < 1e-9,
            [str(np.dtype(p.dtype)) for p in bare.params.values()]]


@scenario
def sc_unused_param_warns(mx, tmp):
    class Spare(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.spare = self.params.get("spare", shape=(2,))

        def hybrid_forward(self, F, x, spare):
            return x + 1

    s = Spare()
    s.initialize()
    s.hybridize()
    return [s(mx.nd.ones((1, 2))).asnumpy().tolist(), s.spare.shape]


@scenario
def sc_all_none_input(mx, tmp):
    B = _B(mx)
    t = B["TwoIn"]()
    t.hybridize()
    t(None, None)


@scenario
def sc_optimize_for_without_backend(mx, tmp):
    B = _B(mx)
    lin = B["Lin"](2, in_units=2)
    lin.initialize()
    lin.optimize_for(mx.nd.ones((1, 2)))


@scenario
def sc_hybridize_warns_about_hooks(mx, tmp):
    B = _B(mx)
    a, b = B["Lin"](2, in_units=2), B["Lin"](2, in_units=2)
    a.register_forward_hook(lambda *args: None)
    b.register_forward_pre_hook(lambda *args: None)
    a.hybridize(False)
    b.hybridize(False)
    a.hybridize()
    return "done"
