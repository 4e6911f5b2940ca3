"""ParameterDict scenarios (see ``parameter_scenarios.py``), run on MXNet and gluonlite."""
import os

import numpy as np

try:
    from .parameter_scenarios import _plain, scenario
except ImportError:  # run as a top-level module by the fixture script
    from parameter_scenarios import _plain, scenario


# -- ParameterDict: get and friends -----------------------------------------------------------
def _dict(mx):
    d = mx.gluon.ParameterDict("net_")
    d.get("weight", shape=(3, 0), allow_deferred_init=True)
    return d


@scenario
def sc_dict_repr(mx, tmp):
    d = _dict(mx)
    d.get_constant("k", [1, 2, 3])
    d.get("b", dtype="float16")
    return [repr(mx.gluon.ParameterDict("net_")), repr(mx.gluon.ParameterDict()), repr(d),
            str(d), d.prefix]


@scenario
def sc_dict_get_reconcile(mx, tmp):
    d = _dict(mx)
    w = d["net_weight"]
    out = [d.get("weight") is w, d.get("weight", shape=(3, 4)).shape, w.shape,
           d.get("weight", shape=(0, 4)).shape, d.get("weight", shape=(0, 0)).shape,
           str(d.get("weight", dtype="float32").dtype),
           str(d.get("weight", dtype=np.float32).dtype),
           d.get("weight", lr_mult=1.0).lr_mult, d.get("weight", init="zeros").init,
           d.get("weight", foo=3).foo]
    d.get("b")
    out.append(d.get("b", shape=(3, 4)).shape)
    d.get("c", shape=(0, -1))
    out.append(d.get("c", shape=(-1, 5)).shape)
    d.get("c2", shape=(2, 3))
    out.append(d.get("c2", shape=[2, 3]).shape)
    out.append(d.get("c2", shape=(2, -1)).shape)
    return out


@scenario
def sc_dict_get_shape_conflict(mx, tmp):
    d = _dict(mx)
    d.get("weight", shape=(3, 4))
    d.get("weight", shape=(5, 4))


@scenario
def sc_dict_get_ndim_conflict(mx, tmp):
    d = _dict(mx)
    d.get("weight", shape=(3,))


@scenario
def sc_dict_get_dtype_conflict(mx, tmp):
    _dict(mx).get("weight", dtype="float16")


@scenario
def sc_dict_get_lr_mult_conflict(mx, tmp):
    _dict(mx).get("weight", lr_mult=2.0)


@scenario
def sc_dict_get_init_conflict(mx, tmp):
    d = _dict(mx)
    d.get("weight", init="zeros")
    d.get("weight", init="ones")


@scenario
def sc_dict_get_grad_req_conflict(mx, tmp):
    _dict(mx).get("weight", grad_req="add")


@scenario
def sc_dict_mapping(mx, tmp):
    d = _dict(mx)
    d.get("b")
    return [list(d.keys()), "net_weight" in d, "weight" in d, list(iter(d)),
            [v.name for v in d.values()], [k for k, _ in d.items()],
            d["net_weight"].name]


@scenario
def sc_dict_missing_key(mx, tmp):
    _dict(mx)["weight"]


@scenario
def sc_dict_shared(mx, tmp):
    d = _dict(mx)
    s = mx.gluon.ParameterDict("net_", shared=d)
    s2 = mx.gluon.ParameterDict("other_", shared=d)
    return [s.get("weight") is d["net_weight"], list(s.keys()),
            s2.get("weight") is d["net_weight"], list(s2.keys())]


@scenario
def sc_dict_update(mx, tmp):
    d = _dict(mx)
    f = mx.gluon.ParameterDict("x_")
    f.get("q")
    d.update(f)
    d.update(f)
    return list(d.keys())


@scenario
def sc_dict_update_conflict(mx, tmp):
    d = _dict(mx)
    e = mx.gluon.ParameterDict("net_")
    e.get("weight")
    d.update(e)


@scenario
def sc_dict_get_constant(mx, tmp):
    d = _dict(mx)
    k = d.get_constant("k", [1, 2, 3])
    return [repr(k), list(d.keys()), d.get_constant("k") is k,
            d.get_constant("k", mx.nd.array([1, 2, 3])) is k]


@scenario
def sc_dict_get_constant_missing(mx, tmp):
    _dict(mx).get_constant("nope")


@scenario
def sc_dict_get_constant_not_constant(mx, tmp):
    _dict(mx).get_constant("weight", [1])


@scenario
def sc_dict_get_constant_mismatch(mx, tmp):
    d = _dict(mx)
    d.get_constant("k", [1, 2, 3])
    d.get_constant("k", mx.nd.array([1, 2, 4]))


@scenario
def sc_dict_initialize(mx, tmp):
    d = mx.gluon.ParameterDict("n_")
    a = d.get("a", shape=(2,), init="ones")
    b = d.get("b", shape=(2,))
    d.initialize(mx.init.Constant(5), ctx=[mx.cpu(0), mx.cpu(1)])
    first = _plain([a.data(), b.data(mx.cpu(1)), d.list_ctx()])
    d.initialize()
    d.setattr("grad_req", "null")
    d.setattr("lr_mult", 0.1)
    reqs = [v.grad_req for v in d.values()] + [v.lr_mult for v in d.values()]
    d.initialize(init="zeros", force_reinit=True)
    d.reset_ctx([mx.cpu(1)])
    d.zero_grad()
    return first + [reqs, a.data(), b.data(), d.list_ctx()]


# -- ParameterDict: save / load ---------------------------------------------------------------
def _saved(mx, tmp):
    d = mx.gluon.ParameterDict("net_")
    w = d.get("weight", shape=(2, 3), init="ones")
    d.get("bias", shape=(2,), init="zeros")
    d.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    w.data(mx.cpu(1))[:] = 3
    full = os.path.join(tmp, "a.params")
    d.save(full)
    d.save(os.path.join(tmp, "b.params"), strip_prefix="net_")
    return full


def _target(mx, weight=(2, 3), bias=(2,), **kw):
    e = mx.gluon.ParameterDict("net_")
    e.get("weight", shape=weight, **kw)
    e.get("bias", shape=bias)
    return e


@scenario
def sc_save_keys(mx, tmp):
    full = _saved(mx, tmp)
    return [sorted(mx.nd.load(full).keys()), mx.nd.load(full)["net_weight"],
            sorted(mx.nd.load(os.path.join(tmp, "b.params")).keys())]


@scenario
def sc_save_strip_prefix_error(mx, tmp):
    d = mx.gluon.ParameterDict("net_")
    d.get("z", shape=(1,))
    d.initialize()
    d.save(os.path.join(tmp, "c.params"), strip_prefix="foo_")


@scenario
def sc_load_roundtrip(mx, tmp):
    _saved(mx, tmp)
    e = _target(mx)
    e.load(os.path.join(tmp, "b.params"), restore_prefix="net_")
    return [e["net_weight"].data(), e["net_bias"].data(), e["net_weight"].list_ctx(),
            e["net_weight"].grad()]


@scenario
def sc_load_missing(mx, tmp):
    _saved(mx, tmp)
    _target(mx).load(os.path.join(tmp, "b.params"))


@scenario
def sc_load_restore_prefix_error(mx, tmp):
    _saved(mx, tmp)
    _target(mx).load(os.path.join(tmp, "b.params"), restore_prefix="xx")


@scenario
def sc_load_missing_extra_param(mx, tmp):
    full = _saved(mx, tmp)
    e = _target(mx)
    e.get("extra", shape=(1,))
    e.load(full)


@scenario
def sc_load_allow_missing(mx, tmp):
    full = _saved(mx, tmp)
    e = _target(mx)
    x = e.get("extra", shape=(1,))
    e.load(full, allow_missing=True, ctx=mx.cpu(2))
    return [x._data, e["net_weight"].list_ctx(), e["net_weight"].data()]


@scenario
def sc_load_extra(mx, tmp):
    full = _saved(mx, tmp)
    e = mx.gluon.ParameterDict("net_")
    e.get("weight", shape=(2, 3))
    e.load(full)


@scenario
def sc_load_ignore_extra(mx, tmp):
    full = _saved(mx, tmp)
    e = mx.gluon.ParameterDict("net_")
    w = e.get("weight", shape=(2, 3))
    e.load(full, ignore_extra=True)
    return w.data()


@scenario
def sc_load_shape_mismatch(mx, tmp):
    _target(mx, weight=(3, 3)).load(_saved(mx, tmp))


@scenario
def sc_load_deferred(mx, tmp):
    full = _saved(mx, tmp)
    e = _target(mx, weight=(2, 0), allow_deferred_init=True)
    e.initialize(ctx=mx.cpu(1))
    e.load(full)
    w = e["net_weight"]
    return [w.shape, w.list_ctx(), w._deferred_init, w.data(mx.cpu(1)), w.grad(mx.cpu(1))]


@scenario
def sc_load_deferred_ctx_conflict(mx, tmp):
    full = _saved(mx, tmp)
    e = _target(mx, weight=(2, 0), allow_deferred_init=True)
    e.initialize(ctx=mx.cpu(1))
    e.load(full, ctx=mx.cpu(0))


@scenario
def sc_load_uninitialized_ctx(mx, tmp):
    full = _saved(mx, tmp)
    e = _target(mx, weight=(0, 3))
    e.load(full, ctx=[mx.cpu(2)])
    w = e["net_weight"]
    return [w.shape, w.list_ctx(), w.grad().context]


@scenario
def sc_load_initialized_ctx_conflict(mx, tmp):
    full = _saved(mx, tmp)
    e = _target(mx)
    e.initialize(ctx=mx.cpu(0))
    e.load(full, ctx=[mx.cpu(0)])
    e.load(full, ctx=[mx.cpu(0), mx.cpu(1)])


@scenario
def sc_load_dtype_mismatch(mx, tmp):
    full = _saved(mx, tmp)
    e = _target(mx, weight=None, dtype="float16")
    e.load(full)


@scenario
def sc_load_cast_dtype(mx, tmp):
    full = _saved(mx, tmp)
    e = _target(mx, weight=None, dtype="float16")
    e.load(full, cast_dtype=True)
    f = _target(mx, weight=None, dtype="float16")
    f.load(full, cast_dtype=True, dtype_source="saved")
    return [str(e["net_weight"].data().dtype), str(f["net_weight"].data().dtype),
            str(f["net_weight"].dtype), f["net_weight"].data()]


@scenario
def sc_load_arg_aux_keys(mx, tmp):
    path = os.path.join(tmp, "argaux.params")
    mx.nd.save(path, {"arg:net_weight": mx.nd.ones((2, 3)),
                      "aux:net_bias": mx.nd.ones((2,)) * 4})
    e = _target(mx)
    e.initialize()
    e.load(path)
    return [e["net_weight"].data(), e["net_bias"].data()]


@scenario
def sc_load_brief_lists(mx, tmp):
    msgs = []
    for n in (7, 8, 10):
        path = os.path.join(tmp, "big%d.params" % n)
        mx.nd.save(path, {"p%d" % i: mx.nd.ones((1,)) for i in range(n)})
        g = mx.gluon.ParameterDict("")
        for i in range(n + 1):
            g.get("p%d" % i, shape=(1,))
        try:
            g.load(path)
        except AssertionError as err:
            msgs.append(str(err).replace(tmp, "<TMP>"))
        h = mx.gluon.ParameterDict("")
        for i in range(n):
            h.get("q%d" % i, shape=(1,))
        try:
            h.load(path, allow_missing=True)
        except AssertionError as err:
            msgs.append(str(err).replace(tmp, "<TMP>"))
    return msgs


@scenario
def sc_load_dict(mx, tmp):
    e = _target(mx)
    e.load_dict({"net_weight": mx.nd.ones((2, 3)), "net_bias": mx.nd.zeros((2,))})
    f = _target(mx)
    try:
        f.load_dict({"net_weight": mx.nd.ones((2, 3))})
    except AssertionError as err:
        return [e["net_weight"].data(), str(err)]
