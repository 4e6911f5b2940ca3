"""Scenarios for Parameter / Constant / ParameterDict, run on MXNet and on gluonlite.

Each ``sc_*`` function takes the library module ``mx`` (``mxnet`` or ``gluonlite``)
and a scratch directory, and returns plain data (or raises).  The fixture script
``tests/fixtures/gen_parameter.py`` runs them on MXNet 1.9.1 and records results,
errors (type and message) and warnings in ``tests/fixtures/parameter/scenarios.json``;
``test_parameter.py`` runs them on gluonlite and compares.  The ParameterDict
scenarios live in ``parameter_dict_scenarios.py``, registered in the same
``SCENARIOS``; import :func:`all_scenarios`.  Neither module imports mxnet.
"""
import os
import warnings

import numpy as np

SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__[3:]] = fn
    return fn


def run(fn, mx, tmp):
    """Run a scenario: ``{'result'|'error','type','mro','message', 'warnings'}``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = {"result": _plain(fn(mx, tmp))}
        except Exception as err:  # noqa: BLE001 - recorded, compared by the test
            builtin = next(c.__name__ for c in type(err).__mro__
                           if c.__module__ == "builtins")
            out = {"error": type(err).__name__, "builtin": builtin,
                   "message": str(err).replace(tmp, "<TMP>")}
    # (MXNet also warns when a Constant's initializer name is registered again)
    out["warnings"] = [str(w.message) for w in caught if issubclass(w.category, UserWarning)
                       and "registered with name" not in str(w.message)]
    return out


def _plain(x):
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if hasattr(x, "asnumpy"):
        return np.round(x.asnumpy().astype(np.float64), 5).tolist()
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, (np.integer, np.floating)):
        return x.item()
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    return str(x)


def _P(mx):
    return mx.gluon.Parameter


# -- Parameter: attributes ---------------------------------------------------------------
@scenario
def sc_repr_unknown_dim(mx, tmp):
    return repr(_P(mx)("dense0_weight", shape=(10, 0)))


@scenario
def sc_repr_int_shape(mx, tmp):
    return repr(_P(mx)("x", shape=5))


@scenario
def sc_repr_str_dtype(mx, tmp):
    p = _P(mx)("x", shape=(2, 3), dtype="float16")
    return [repr(p), str(p)]


@scenario
def sc_repr_no_shape(mx, tmp):
    return repr(_P(mx)("x"))


@scenario
def sc_attributes(mx, tmp):
    p = _P(mx)("w", shape=(2, 3), lr_mult=2.0, wd_mult=0.5, init="zeros")
    q = _P(mx)("q")
    return [p.name, p.lr_mult, p.wd_mult, p.init, p.grad_req, q.init, str(q.dtype),
            _P(mx)("w", grad_req="add").grad_req]


@scenario
def sc_shape_fill_unknown(mx, tmp):
    p = _P(mx)("w", shape=(10, 0))
    p.shape = (10, 5)
    q = _P(mx)("q", shape=(0, 0))
    q.shape = (3, 0)
    r = _P(mx)("r")
    r.shape = (4, 2)
    return [p.shape, q.shape, r.shape]


@scenario
def sc_shape_same_again(mx, tmp):
    p = _P(mx)("w", shape=(3, 4))
    p.shape = (3, 4)
    return p.shape


@scenario
def sc_grad_req_invalid(mx, tmp):
    _P(mx)("w", grad_req="foo")


@scenario
def sc_grad_req_set_invalid(mx, tmp):
    p = _P(mx)("w", shape=(2,))
    p.grad_req = "add"
    p.grad_req = "bad"


@scenario
def sc_grad_req_not_differentiable(mx, tmp):
    p = _P(mx)("w", shape=(2,), differentiable=False)
    p.grad_req = "write"
    return p.grad_req


@scenario
def sc_stype_invalid(mx, tmp):
    _P(mx)("w", stype="foo")


@scenario
def sc_grad_stype_invalid(mx, tmp):
    _P(mx)("w", grad_stype="foo")


# -- Parameter: errors before initialization ----------------------------------------------
def _uninit(mx):
    return _P(mx)("w", shape=(2, 3))


@scenario
def sc_uninit_data(mx, tmp):
    _uninit(mx).data()


@scenario
def sc_uninit_list_data(mx, tmp):
    _uninit(mx).list_data()


@scenario
def sc_uninit_grad(mx, tmp):
    _uninit(mx).grad()


@scenario
def sc_uninit_list_grad(mx, tmp):
    _uninit(mx).list_grad()


@scenario
def sc_uninit_list_ctx(mx, tmp):
    _uninit(mx).list_ctx()


@scenario
def sc_uninit_set_data(mx, tmp):
    _uninit(mx).set_data(mx.nd.ones((2, 3)))


@scenario
def sc_uninit_reset_ctx(mx, tmp):
    _uninit(mx).reset_ctx(mx.cpu())


@scenario
def sc_uninit_zero_grad(mx, tmp):
    return _uninit(mx).zero_grad()


@scenario
def sc_uninit_save(mx, tmp):
    d = mx.gluon.ParameterDict("n_")
    d.get("w", shape=(2,))
    d.save(os.path.join(tmp, "u.params"))


# -- Parameter: initialize and deferred initialization ------------------------------------
def _deferred(mx):
    p = _P(mx)("w", shape=(2, 0), allow_deferred_init=True)
    p.initialize()
    return p


@scenario
def sc_deferred_data(mx, tmp):
    _deferred(mx).data()


@scenario
def sc_deferred_list_data(mx, tmp):
    _deferred(mx).list_data()


@scenario
def sc_deferred_grad(mx, tmp):
    _deferred(mx).grad()


@scenario
def sc_deferred_list_ctx(mx, tmp):
    p = _P(mx)("w", shape=(2, 0), allow_deferred_init=True)
    p.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    return p.list_ctx()


@scenario
def sc_deferred_finish(mx, tmp):
    p = _P(mx)("w", shape=(2, 0), allow_deferred_init=True, init="ones")
    p.initialize()
    p.shape = (2, 3)
    p._finish_deferred_init()
    return [p.data(), p.grad(), p.list_ctx()]


@scenario
def sc_deferred_no_shape(mx, tmp):
    p = _P(mx)("w", allow_deferred_init=True, init="ones")
    p.initialize()
    p.shape = (1, 2)
    p._finish_deferred_init()
    return p.data()


@scenario
def sc_deferred_finish_unknown(mx, tmp):
    _deferred(mx)._finish_deferred_init()


@scenario
def sc_init_invalid_shape(mx, tmp):
    _P(mx)("w", shape=(2, 0)).initialize()


@scenario
def sc_init_no_shape(mx, tmp):
    _P(mx)("w").initialize()


@scenario
def sc_init_scalar_shape(mx, tmp):
    _P(mx)("w", shape=()).initialize()


@scenario
def sc_init_negative_dim(mx, tmp):
    _P(mx)("w", shape=(2, -1), allow_deferred_init=True).initialize()


@scenario
def sc_init_twice_warns(mx, tmp):
    p = _P(mx)("w", shape=(2,), init="ones")
    p.initialize()
    p.data()[:] = 5
    p.initialize(init="zeros")
    return p.data()


@scenario
def sc_init_force_reinit(mx, tmp):
    p = _P(mx)("w", shape=(2,), init="ones")
    p.initialize()
    p.initialize(init="zeros", force_reinit=True)
    return p.data()


@scenario
def sc_init_precedence(mx, tmp):
    init = mx.init
    a = _P(mx)("a_bias", shape=(3,), init="ones")
    a.initialize(init="zeros")                      # the argument beats self.init
    b = _P(mx)("b_bias", shape=(3,), init="ones")
    b.initialize(default_init="zeros")               # self.init beats default_init
    c = _P(mx)("c_bias", shape=(3,))
    c.initialize(default_init=init.Constant(3))      # default_init used, even for a bias
    d = _P(mx)("d_weight", shape=(2,), init=init.Constant(7))
    d.initialize()
    return [a.data(), b.data(), c.data(), d.data()]


@scenario
def sc_init_uniform_default_on_bias(mx, tmp):
    # the default Uniform() fills every parameter, whatever its name
    p = _P(mx)("foo_bias", shape=(1000,))
    p.initialize()
    v = p.data().asnumpy()
    return [bool((v != 0).any()), bool(np.abs(v).max() <= 0.07)]


@scenario
def sc_init_dtype(mx, tmp):
    p = _P(mx)("w", shape=(2, 3), dtype="float16")
    p.initialize()
    return [str(p.data().dtype), str(p.grad().dtype)]


@scenario
def sc_init_duplicate_ctx(mx, tmp):
    p = _P(mx)("w", shape=(2,))
    p.initialize(ctx=[mx.cpu(0), mx.cpu(0)])
    return [p.list_ctx(), len(p.list_data())]


# -- Parameter: contexts -------------------------------------------------------------------
def _two_ctx(mx, **kw):
    p = _P(mx)("w", shape=(2, 3), init="ones", **kw)
    p.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    return p


@scenario
def sc_ctx_lookup(mx, tmp):
    p = _two_ctx(mx)
    with mx.Context(mx.cpu(1)):
        current = p.data().context
    q = _P(mx)("q", shape=(1,))
    q.initialize(ctx=mx.cpu(1))
    return [p.list_ctx(), p.data().context, p.data(mx.cpu(1)).context, current,
            p.grad(mx.cpu(1)).context, q.data().context, q.list_ctx()]


@scenario
def sc_ctx_missing(mx, tmp):
    _two_ctx(mx).data(mx.cpu(2))


@scenario
def sc_ctx_missing_grad(mx, tmp):
    _two_ctx(mx).grad(mx.cpu(3))


@scenario
def sc_ctx_missing_current(mx, tmp):
    p = _two_ctx(mx)
    with mx.Context(mx.cpu(2)):
        p.data()


@scenario
def sc_reset_ctx(mx, tmp):
    p = _two_ctx(mx)
    p.data(mx.cpu(1))[:] = 3
    p.reset_ctx([mx.cpu(1), mx.cpu(2)])
    first = _plain([p.list_ctx(), p.data(mx.cpu(2)), p.grad(mx.cpu(1)).context])
    p.reset_ctx(mx.cpu(3))
    q = _P(mx)("q", shape=(2, 0), allow_deferred_init=True)
    q.initialize()
    q.reset_ctx(mx.cpu(5))
    return first + [p.list_ctx(), q.list_ctx()]


# -- Parameter: gradients ------------------------------------------------------------------
@scenario
def sc_grad_write_add(mx, tmp):
    ag = mx.autograd
    p = _two_ctx(mx)
    with ag.record():
        y = (p.data() * 2).sum()
    y.backward()
    first = _plain([p.grad(), p.grad(mx.cpu(1))])
    p.zero_grad()
    zeroed = _plain(p.grad())
    p.grad_req = "add"
    for _ in range(2):
        with ag.record():
            y = (p.data() * p.data()).sum()
        y.backward()
    return first + [zeroed, p.grad(), p.grad_req]


@scenario
def sc_grad_req_null_drops(mx, tmp):
    p = _two_ctx(mx)
    p.grad_req = "null"
    return [p.grad_req, p._grad]


@scenario
def sc_grad_null_error(mx, tmp):
    p = _two_ctx(mx)
    p.grad_req = "null"
    p.grad()


@scenario
def sc_list_grad_null_error(mx, tmp):
    p = _two_ctx(mx, grad_req="null")
    p.list_grad()


@scenario
def sc_grad_req_null_then_write(mx, tmp):
    p = _two_ctx(mx)
    p.grad_req = "null"
    p.zero_grad()
    p.grad_req = "write"
    with mx.autograd.record():
        y = (p.data() * 3).sum()
    y.backward()
    return p.grad()


# -- Parameter: cast, set_data, sparse, var --------------------------------------------------
@scenario
def sc_cast(mx, tmp):
    p = _two_ctx(mx)
    p.cast("float16")
    a = [str(p.data().dtype), str(p.grad().dtype), str(p.dtype)]
    p.dtype = "float64"
    with mx.autograd.record():
        y = (p.data() * 2).sum()
    y.backward()
    q = _P(mx)("q", shape=(2,))
    q.cast("float16")
    q.initialize()
    return a + [str(p.data().dtype), str(p.dtype), p.grad(), str(q.dtype),
                str(q.data().dtype)]


@scenario
def sc_set_data(mx, tmp):
    p = _two_ctx(mx)
    p.set_data(mx.nd.ones((2, 3)) * 7)
    a = _plain([p.data(), p.data(mx.cpu(1))])
    p.set_data(np.full((2, 3), 2.0))
    return a + [p.data(mx.cpu(1))]


@scenario
def sc_set_data_shape_mismatch(mx, tmp):
    _two_ctx(mx).set_data(mx.nd.ones((3, 3)))


@scenario
def sc_set_data_deferred(mx, tmp):
    p = _deferred(mx)
    p.set_data(mx.nd.ones((2, 4)) * 2)
    shape = p.shape
    p._finish_deferred_init()
    return [shape, p.data(), p.grad()]


@scenario
def sc_row_sparse_data(mx, tmp):
    p = _two_ctx(mx)
    p.row_sparse_data(mx.nd.array([0]))


@scenario
def sc_list_row_sparse_data(mx, tmp):
    p = _two_ctx(mx)
    p.list_row_sparse_data(mx.nd.array([0]))


@scenario
def sc_var(mx, tmp):
    p = _P(mx)("w", shape=(2, 3), lr_mult=2.0, wd_mult=0.5, init="zeros", dtype="float16")
    v = p.var()
    q = _P(mx)("q")
    return [v.name, sorted(v.list_attr().items()), p.var() is v,
            sorted(q.var().list_attr().items())]


@scenario
def sc_reduce_mean(mx, tmp):
    p = _two_ctx(mx)
    p.data(mx.cpu(1))[:] = 3
    r = p._reduce()
    return [r, r.context]


# -- Constant ------------------------------------------------------------------------------
@scenario
def sc_constant(mx, tmp):
    c = mx.gluon.Constant("c", [[1, 2], [3, 4]])
    c.initialize()
    return [repr(c), c.init.startswith("Constant_c_"), c.grad_req, str(c.dtype),
            c.shape, c.data(), c.value]


@scenario
def sc_constant_dtype(mx, tmp):
    c = mx.gluon.Constant("c", mx.nd.array([1, 2], dtype="int32"))
    d = mx.gluon.Constant("d", np.array([1, 2], dtype="int64"))
    c.initialize()
    return [repr(c), repr(d), c.data()]


@scenario
def sc_constant_grad_req_warns(mx, tmp):
    c = mx.gluon.Constant("c", [1, 2])
    c.grad_req = "write"
    return c.grad_req


@scenario
def sc_constant_grad_error(mx, tmp):
    c = mx.gluon.Constant("c", [1, 2])
    c.initialize()
    c.grad()


@scenario
def sc_constant_init_override(mx, tmp):
    c = mx.gluon.Constant("c", [1, 2])
    c.initialize(init=mx.init.Zero())
    d = mx.gluon.ParameterDict("x_")
    k = d.get_constant("k", [5, 6])
    d.initialize(mx.init.Constant(9))
    return [c.data(), k.data(), k.var().list_attr()["__init__"].startswith("Constant_x_k_")]


def all_scenarios():
    """Every scenario (this module's and the ParameterDict ones), by name."""
    try:
        from . import parameter_dict_scenarios  # noqa: F401  (registers its scenarios)
    except ImportError:  # run as a top-level module by the fixture script
        import parameter_dict_scenarios  # noqa: F401
    return SCENARIOS
