"""Scenarios for Block / HybridBlock / SymbolBlock, run on MXNet and on gluonlite.

Each ``sc_*`` function takes the library module ``mx`` and a scratch directory and
returns plain data (or raises).  ``tests/fixtures/gen_blocks.py`` runs them on MXNet
1.9.1 and records results, errors and warnings in ``tests/fixtures/blocks/
scenarios.json``; ``test_block_scenarios.py`` runs them on gluonlite and compares.
Every scenario starts a fresh ``NameManager`` so prefixes do not depend on order.
"""
import contextlib
import io
import os

import numpy as np

try:
    from . import block_defs
    from .parameter_scenarios import run  # noqa: F401  (same recording rules)
except ImportError:  # run as a top-level module by the fixture script
    import block_defs
    from parameter_scenarios import run  # noqa: F401

SCENARIOS = {}


def scenario(fn):
    def wrapped(mx, tmp):
        with mx.name.NameManager():
            return fn(mx, tmp)
    wrapped.__name__ = fn.__name__
    SCENARIOS[fn.__name__[3:]] = wrapped
    return wrapped


def _B(mx):
    return block_defs.make(mx)


def _pshapes(pdict):
    return [[k, list(v.shape) if v.shape is not None else None, v.grad_req]
            for k, v in pdict.items()]


# -- naming --------------------------------------------------------------------------------
@scenario
def sc_prefix_counters(mx, tmp):
    B = _B(mx)
    a, b = B["Lin"](2), B["Lin"](2)
    c = B["Net"]()
    return [a.prefix, a.name, b.prefix, c.prefix, c.features.prefix, c.hidden.prefix,
            c.output.prefix, c.hidden.name]


@scenario
def sc_nested_names(mx, tmp):
    B = _B(mx)
    outer = B["HSeq"]()
    with outer.name_scope():
        outer.add(B["Net"](), B["Lin"](2), B["Net"]())
    inner = B["HSeq"](prefix="model_")
    with inner.name_scope():
        inner.add(B["Lin"](3))
    return [list(outer.collect_params().keys()), list(inner.collect_params().keys()),
            inner.prefix, outer.name]


@scenario
def sc_name_prefix_manager(mx, tmp):
    B = _B(mx)
    with mx.name.Prefix("model_"):
        a = B["Lin"](2)
        b = B["Net"]()
    return [a.prefix, b.prefix, b.features.prefix]


@scenario
def sc_child_outside_name_scope(mx, tmp):
    B = _B(mx)
    outer = B["HSeq"]()
    outer.add(B["Lin"](2), B["Lin"](3))
    return [list(outer.collect_params().keys()), list(outer._children.keys())]


@scenario
def sc_empty_prefix(mx, tmp):
    B = _B(mx)
    a = B["Net"](prefix="")
    return [a.prefix, a.name, list(a.collect_params().keys())]


@scenario
def sc_shared_params(mx, tmp):
    B = _B(mx)
    a = B["Lin"](3, in_units=2)
    b = B["Lin"](3, in_units=2, params=a.params)
    c = B["Lin"](3, params=a.params)
    return [b.prefix, b.params.prefix, b.weight is a.weight, list(b.params.keys()),
            c.prefix]


@scenario
def sc_shared_params_mismatch(mx, tmp):
    B = _B(mx)
    a = B["Lin"](3, in_units=2)
    B["Lin"](4, in_units=2, params=a.params)


@scenario
def sc_collect_params_select(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    return [list(net.collect_params(".*weight|.*bias").keys()),
            list(net.collect_params("net0_features").keys()),
            list(net.collect_params("weight").keys()),
            repr(net.collect_params(".*gamma"))]


@scenario
def sc_structural_names(mx, tmp):
    B = _B(mx)
    outer = B["HSeq"]()
    with outer.name_scope():
        outer.add(B["Net"](), B["Lin"](2))
    return list(outer._collect_params_with_prefix().keys())


@scenario
def sc_params_repr(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    return [repr(net.params), repr(net.features.params), _pshapes(net.collect_params())]


@scenario
def sc_block_repr(mx, tmp):
    B = _B(mx)
    outer = B["HSeq"]()
    with outer.name_scope():
        outer.add(B["Net"](), B["Lin"](2))
    outer.extra = B["Net"]()
    seq = B["Seq"]()
    seq.add(B["Lin"](2))
    return [repr(outer), repr(B["Net"]()), repr(seq)]


# -- attribute rules ------------------------------------------------------------------------
@scenario
def sc_setattr_type_change(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    net.hidden = 3


@scenario
def sc_setattr_block_to_other_block(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    net.hidden = B["Lin"](5)
    net.hidden = B["ConvBN"](2)


@scenario
def sc_setattr_param_override(mx, tmp):
    B = _B(mx)
    lin = B["Lin"](2)
    lin.weight = lin.params.get("other", shape=(1,))


@scenario
def sc_setattr_param_type_change(mx, tmp):
    B = _B(mx)
    lin = B["Lin"](2)
    lin.weight = 5


@scenario
def sc_hybrid_child_must_be_hybrid(mx, tmp):
    B = _B(mx)
    h = B["HSeq"]()
    h.add(B["Seq"]())


@scenario
def sc_register_child_names(mx, tmp):
    B = _B(mx)
    s = B["Seq"]()
    with s.name_scope():
        s.add(B["Lin"](2))
        s.register_child(B["Lin"](3), "head")
        s.add(B["Lin"](4))
    s.tail = B["Lin"](5)
    return [list(s._children.keys()), list(s._collect_params_with_prefix().keys())]


@scenario
def sc_unregistered_list_warns(mx, tmp):
    B = _B(mx)
    s = B["Seq"]()
    s.layers = [B["Lin"](2), B["Lin"](3)]
    return list(s.collect_params().keys())


# -- running and initialization ---------------------------------------------------------------
@scenario
def sc_forward_uninitialized(mx, tmp):
    B = _B(mx)
    lin = B["Lin"](2, in_units=3)
    lin(mx.nd.ones((1, 3)))


@scenario
def sc_forward_uninitialized_hybrid(mx, tmp):
    B = _B(mx)
    lin = B["Lin"](2, in_units=3)
    lin.hybridize()
    lin(mx.nd.ones((1, 3)))


@scenario
def sc_data_before_deferred_forward(mx, tmp):
    B = _B(mx)
    lin = B["Lin"](2)
    lin.initialize()
    lin.weight.data()


@scenario
def sc_deferred_shapes_after_forward(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    net.initialize()
    out = net(mx.nd.ones((2, 3, 6, 6)))
    return [list(out.shape), _pshapes(net.collect_params())]


@scenario
def sc_deferred_shape_failure(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    net.initialize()
    net(mx.nd.ones((2, 3, 6)))


@scenario
def sc_infer_shape(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    net.infer_shape(mx.nd.ones((2, 5, 4, 4)))
    return _pshapes(net.collect_params())


@scenario
def sc_infer_type_conflict(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    net.infer_type(mx.nd.ones((2, 5, 4, 4), dtype="float64"))


@scenario
def sc_infer_type(mx, tmp):
    B = _B(mx)
    t = B["TwoIn"]()
    t.cast("float64")
    t.infer_type(mx.nd.ones((2, 5), dtype="float64"), mx.nd.ones((2, 3), dtype="float64"))
    return [str(np.dtype(p.dtype)) for p in t.collect_params().values()]


@scenario
def sc_mixed_inputs(mx, tmp):
    B = _B(mx)
    t = B["TwoIn"]()
    t.initialize()
    t(mx.nd.ones((1, 2)), mx.sym.var("y"))


@scenario
def sc_no_array_input(mx, tmp):
    B = _B(mx)
    lin = B["Lin"](2, in_units=1)
    lin.initialize()
    lin(3)


@scenario
def sc_hybridized_int_input(mx, tmp):
    B = _B(mx)
    t = B["TwoIn"]()
    t.initialize()
    t.hybridize()
    t(mx.nd.ones((1, 2)), 3)


@scenario
def sc_hybridized_format_change(mx, tmp):
    B = _B(mx)
    t = B["TwoIn"]()
    t.initialize()
    t.hybridize()
    t(mx.nd.ones((1, 2)), mx.nd.ones((1, 2)))
    t(mx.nd.ones((1, 2)), [mx.nd.ones((1, 2)), mx.nd.ones((1, 2))])


@scenario
def sc_output_types(mx, tmp):
    B = _B(mx)
    t = B["TwoIn"]()
    t.initialize()
    x, y = mx.nd.ones((1, 2)), mx.nd.ones((1, 4))
    imperative = type(t(x, y)).__name__
    t.hybridize()
    hybrid = t(x, y)
    return [imperative, type(hybrid).__name__, len(hybrid), list(hybrid[1].shape)]


@scenario
def sc_symbol_forward(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    out = net(mx.sym.var("x"))
    t = B["TwoIn"]()
    u, v = t(mx.sym.var("p"), mx.sym.var("q"))
    return [out.list_arguments(), out.list_auxiliary_states(), out.list_outputs(),
            u.list_arguments(), v.list_outputs()]


@scenario
def sc_traced_graph(mx, tmp):
    B = _B(mx)
    t = B["TwoIn"]()
    t.initialize()
    t.hybridize()
    t(mx.nd.ones((1, 2)), mx.nd.ones((1, 4)))
    inputs, out = t._cached_graph
    return [[i.name for i in inputs], out.list_inputs(), out.list_outputs()]


@scenario
def sc_unused_input_warns(mx, tmp):
    B = _B(mx)

    class Drop(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x, y):
            return x * 2

    d = Drop()
    d.hybridize()
    return list(d(mx.nd.ones((1, 2)), mx.nd.ones((1, 2))).shape)


@scenario
def sc_hybridize_counts(mx, tmp):
    B = _B(mx)
    c = B["Counting"]()
    c.initialize()
    x = mx.nd.ones((3, 4))
    c(x)
    first = list(c.calls)
    c.hybridize()
    for _ in range(3):
        c(x)
    second = list(c.calls)
    c(mx.nd.ones((5, 4)))
    third = list(c.calls)
    c.hybridize()
    c(x)
    c.hybridize(False)
    c(x)
    return [first, second, third, list(c.calls)]


@scenario
def sc_export_before_forward(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    net.initialize()
    net.hybridize()
    net.export(os.path.join(tmp, "net"))


@scenario
def sc_export_keys(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    net.initialize()
    net.hybridize()
    net(mx.nd.ones((2, 3, 6, 6)))
    ret = net.export(os.path.join(tmp, "net"), epoch=7)
    names = sorted(os.listdir(tmp))
    keys = list(mx.nd.load(os.path.join(tmp, "net-0007.params")).keys())
    return [ret, names, keys]


# -- hooks, apply, cast ------------------------------------------------------------------------
@scenario
def sc_hooks(mx, tmp):
    B = _B(mx)
    lin = B["Lin"](2, in_units=3)
    lin.initialize()
    log = []
    h1 = lin.register_forward_pre_hook(lambda b, i: log.append(["pre", b.name, len(i)]))
    h2 = lin.register_forward_hook(
        lambda b, i, o: log.append(["post", b.name, list(o.shape)]))
    lin(mx.nd.ones((1, 3)))
    h1.detach()
    lin(mx.nd.ones((1, 3)))
    h2.detach()
    lin(mx.nd.ones((1, 3)))
    return log


@scenario
def sc_apply_order(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    seen = []
    ret = net.apply(lambda b: seen.append(b.name))
    return [seen, ret is net]


@scenario
def sc_cast(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    net.initialize()
    net(mx.nd.ones((1, 2, 4, 4)))
    net.cast("float64")
    out = net(mx.nd.ones((1, 2, 4, 4), dtype="float64"))
    return [str(np.dtype(out.dtype)),
            [str(np.dtype(p.dtype)) for p in net.collect_params().values()]]


@scenario
def sc_zero_grad(mx, tmp):
    B = _B(mx)
    lin = B["Lin"](2, in_units=3)
    lin.initialize()
    with mx.autograd.record():
        y = lin(mx.nd.ones((1, 3)))
    y.backward()
    before = lin.weight.grad().asnumpy().sum()
    lin.collect_params().zero_grad()
    return [float(before) != 0.0, float(lin.weight.grad().asnumpy().sum())]


@scenario
def sc_summary(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    net.initialize()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        net.summary(mx.nd.ones((2, 3, 6, 6)))
    return buf.getvalue()


@scenario
def sc_summary_shared_and_multi(mx, tmp):
    B = _B(mx)
    s = B["HSeq"]()
    with s.name_scope():
        a = B["Lin"](3, in_units=3)
        s.add(a, B["Lin"](3, in_units=3, params=a.params))
    t = B["TwoIn"]()
    s.initialize()
    t.initialize()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        s.summary(mx.nd.ones((2, 3)))
        t.summary(mx.nd.ones((2, 5)), mx.nd.ones((2, 4)))
    return buf.getvalue()


@scenario
def sc_summary_hybridized(mx, tmp):
    B = _B(mx)
    net = B["Net"]()
    net.initialize()
    net.hybridize()
    net.summary(mx.nd.ones((2, 3, 6, 6)))


def _register_more():
    """Register the scenarios of ``block_scenarios_io.py`` (files, SymbolBlock, nn)."""
    try:
        from . import block_scenarios_io  # noqa: F401
    except ImportError:  # run as a top-level module by the fixture script
        import block_scenarios_io  # noqa: F401


_register_more()
