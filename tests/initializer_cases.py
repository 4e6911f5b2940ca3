"""Initializer cases run both by ``tests/fixtures/gen_initializer.py`` (on MXNet 1.9.1)
and by ``tests/test_initializer.py`` (on gluonlite); each case takes the ``mx``
module and returns plain JSON data, so the two results can be compared.

Random initializers are summarized by statistics; the deterministic ones
(including a ``Probe`` initializer whose values encode the parameter name and the
element position) are recorded value by value.
"""
import json
import logging
import warnings

import numpy as np

_PROBES = {}


def name_code(name):
    """A number that identifies a parameter name."""
    return sum(map(ord, str(name))) % 89


def probe_class(mx):
    """A deterministic initializer, registered as ``probe``: weights get
    ``0.01 * flat_index + name_code + offset``, biases ``-(name_code + offset)``."""
    key = id(mx)
    if key not in _PROBES:
        class Probe(mx.init.Initializer):
            def __init__(self, offset=0.0):
                super().__init__(offset=offset)
                self.offset = offset

            def _init_weight(self, name, arr):
                shape = tuple(arr.shape)
                arr[:] = (np.arange(int(np.prod(shape))).reshape(shape) * 0.01
                          + name_code(name) + self.offset)

            def _init_bias(self, name, arr):
                arr[:] = -(name_code(name) + self.offset)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mx.init.register(Probe)
        _PROBES[key] = Probe
    return _PROBES[key]


def error_info(err):
    """``['error', category, message]`` for an exception (category: the first of the
    standard classes the error is an instance of)."""
    for cat in (KeyError, TypeError, NotImplementedError, ValueError, AssertionError,
                IndexError, RuntimeError):
        if isinstance(err, cat):
            msg = str(err)
            return ["error", cat.__name__, msg.splitlines()[0] if msg else ""]
    return ["error", type(err).__name__, str(err)]


def values(arr):
    a = arr.asnumpy()
    return {"dtype": a.dtype.name, "shape": list(a.shape), "data": a.ravel().tolist()}


def attempt(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn()
    except Exception as err:  # noqa: BLE001 - recorded and compared
        return error_info(err)


# -- dumps / create ------------------------------------------------------------------
DUMPS = {
    "xavier": lambda I: I.Xavier(),
    "xavier_kw": lambda I: I.Xavier(magnitude=2.34, factor_type="in", rnd_type="gaussian"),
    "xavier_pos": lambda I: I.Xavier("gaussian", "out", 2),
    "msraprelu": lambda I: I.MSRAPrelu(),
    "msraprelu_kw": lambda I: I.MSRAPrelu("in", 0.1),
    "uniform": lambda I: I.Uniform(),
    "uniform_kw": lambda I: I.Uniform(0.5),
    "normal": lambda I: I.Normal(),
    "normal_kw": lambda I: I.Normal(sigma=2),
    "orthogonal": lambda I: I.Orthogonal(),
    "orthogonal_kw": lambda I: I.Orthogonal(2.0, "normal"),
    "constant_int": lambda I: I.Constant(3),
    "constant_float": lambda I: I.Constant(2.5),
    "constant_np": lambda I: I.Constant(np.array([1.0, 2.0])),
    "zero": lambda I: I.Zero(),
    "one": lambda I: I.One(),
    "bilinear": lambda I: I.Bilinear(),
    "lstmbias": lambda I: I.LSTMBias(),
    "lstmbias_kw": lambda I: I.LSTMBias(forget_bias=0.5),
    "fused": lambda I: I.FusedRNN(I.Xavier(), 4, 2, "lstm"),
    "fused_none": lambda I: I.FusedRNN(None, 4, 2, "gru", True, 0.5),
    "base": lambda I: I.Initializer(a=1, b=[1, 2], c="x"),
}

CREATE = ["zeros", "Zeros", "ZERO", "ones", "one", "xavier", "XAVIER", "uniform", "normal",
          "orthogonal", "bilinear", "lstmbias", "msraprelu", '["xavier", {"magnitude": 2}]',
          '["constant", {"value": 4}]', '{"initializer": "normal", "sigma": 0.5}',
          '["fusedrnn", {"init": null, "num_hidden": 3, "num_layers": 1, "mode": "gru"}]',
          "foo", "probe", '["probe", {"offset": 2.5}]']


def case_dumps(mx):
    return {k: f(mx.init).dumps() for k, f in DUMPS.items()}


def case_create(mx):
    probe_class(mx)
    out = {}
    for spec in CREATE:
        def make(spec=spec):
            obj = mx.init.create(spec)
            return [type(obj).__name__, json.loads(json.dumps(obj._kwargs))]
        out[spec] = attempt(make)
    I = mx.init
    out["args"] = attempt(lambda: I.create("uniform", 0.3)._kwargs)
    out["kwargs"] = attempt(lambda: I.create("uniform", scale=0.3)._kwargs)
    out["nickname"] = attempt(lambda: I.create(initializer="uniform", scale=0.3)._kwargs)
    out["dict"] = attempt(lambda: type(I.create({"initializer": "zeros"})).__name__)
    out["instance_args"] = attempt(lambda: I.create(I.Zero(), 3))
    out["not_string"] = attempt(lambda: I.create(3))
    return out


def case_equality(mx):
    I = mx.init
    return [I.Xavier() == I.Xavier(), I.Xavier() == I.Xavier(magnitude=2),
            I.Zero() == I.One(), I.Xavier() == 3, I.Xavier() != I.Xavier(),
            attempt(lambda: hash(I.Zero()))]


# -- dispatch --------------------------------------------------------------------------
DISPATCH_NAMES = ["fc_weight", "fc_bias", "bn_gamma", "bn_beta", "bn_moving_mean",
                  "bn_moving_var", "bn_running_mean", "bn_running_var", "x_moving_inv_var",
                  "x_moving_avg", "q_min", "q_max", "upsampling0_weight", "upsampling0_bias",
                  "upsampling_gamma", "stn_loc_weight", "stn_loc_bias", "stn_loc_gamma",
                  "foo", "weightx", "Weight", "fcweight", "xbias", "bilinear_weight",
                  "stn_loc_foo", "conv_bias_quantize"]


def _dispatch_shape(name):
    if name.startswith("stn_loc_bias"):
        return (6,)
    if name.startswith("upsampling"):
        return (2, 1, 3, 4)
    return (2, 3)


def case_dispatch(mx):
    Probe = probe_class(mx)
    init = Probe(0.5)
    out = {}
    for name in DISPATCH_NAMES:
        for legacy in (False, True):
            dtype = "int8" if "quantize" in name else "float32"

            def run(name=name, legacy=legacy, dtype=dtype):
                arr = mx.nd.full(_dispatch_shape(name), -5, dtype=dtype)
                init(name if legacy else mx.init.InitDesc(name), arr)
                return values(arr)
            out[f"{name}|{'legacy' if legacy else 'desc'}"] = attempt(run)
    return out


def case_legacy_checks(mx):
    Probe = probe_class(mx)
    out = {}
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        Probe()("fc_weight", mx.nd.zeros(2))
    out["warning"] = [[w.category.__name__, str(w.message)] for w in rec]
    out["bad_name"] = attempt(lambda: Probe()(3, mx.nd.zeros(2)))
    out["bad_arr"] = attempt(lambda: Probe()("w_weight", np.zeros(2)))
    out["not_implemented"] = attempt(
        lambda: mx.init.Initializer()(mx.init.InitDesc("w_weight"), mx.nd.zeros(3)))
    return out


ATTR_INITS = ['["one", {}]', "zeros", "ones", '["constant", {"value": 5}]', "bilinear",
              '["lstmbias", {"forget_bias": 3.0}]', '["probe", {"offset": 1.5}]', "Probe"]


def case_attr_init(mx):
    Probe = probe_class(mx)
    out = {}
    for spec in ATTR_INITS:
        for name in ("fc_weight", "fc_bias", "bn_moving_var", "anything"):
            def run(spec=spec, name=name):
                shape = (1, 2, 2, 4) if spec == "bilinear" else (8,)
                arr = mx.nd.full(shape, -3)
                desc = mx.init.InitDesc(name, attrs={"__init__": spec, "lr_mult": "1"})
                mx.init.Zero()(desc, arr)
                return values(arr)
            out[f"{spec}|{name}"] = attempt(run)
    arr = mx.nd.zeros(4)
    desc = mx.init.InitDesc("w", attrs={"__init__": Probe(2.0)})
    outer = mx.init.One()
    outer(desc, arr)
    out["instance"] = values(arr)
    out["global_init_set"] = desc.global_init is outer
    return out


def case_initdesc(mx):
    D = mx.init.InitDesc
    d = D("abc")
    d2 = D("abc", {"k": "v"}, "G")
    return {"attrs": d.attrs, "global": d.global_init, "eq": d == "abc",
            "hash": hash(d) == hash("abc"), "isstr": isinstance(d, str), "repr": repr(d),
            "attrs2": d2.attrs, "global2": d2.global_init}


# -- deterministic initializers ---------------------------------------------------------
BILINEAR_SHAPES = [(1, 1, 4, 4), (2, 1, 3, 3), (1, 1, 4, 6), (1, 1, 5, 2), (2, 3, 7, 5),
                   (1, 2, 2, 3, 4), (3, 3)]


def case_bilinear(mx):
    out = {}
    for shape in BILINEAR_SHAPES:
        for dtype in ("float32", "float64", "float16"):
            def run(shape=shape, dtype=dtype):
                arr = mx.nd.zeros(shape, dtype=dtype)
                mx.init.Bilinear()(mx.init.InitDesc("up_weight"), arr)
                return values(arr)
            out[f"{shape}|{dtype}"] = attempt(run)
    return out


def case_lstmbias(mx):
    I, D = mx.init, mx.init.InitDesc
    out = {}
    for shape in [(8,), (10,), (8, 2), (3,)]:
        def run(shape=shape):
            arr = mx.nd.full(shape, 5)
            I.LSTMBias(2.0)(D("lstm_weight"), arr)
            return values(arr)
        out[f"weight{shape}"] = run()
    arr = mx.nd.full((8,), 5)
    I.LSTMBias(2.0)(D("lstm_bias"), arr)
    out["bias"] = values(arr)
    arr = mx.nd.full((12,), 5, dtype="float16")
    I.Xavier()(D("lstm_i2h_bias", attrs={"__init__": I.LSTMBias(0.25).dumps()}), arr)
    out["attr"] = values(arr)
    return out


def case_constant(mx):
    I, D = mx.init, mx.init.InitDesc
    out = {}
    for key, value, shape, dtype in [("int_into_f32", 3, (2, 2), "float32"),
                                     ("float_into_int", 2.7, (3,), "int32"),
                                     ("float_into_f16", 0.1, (3,), "float16"),
                                     ("float_into_f64", 0.1, (3,), "float64"),
                                     ("row", [1.0, 2.0, 3.0], (2, 3), "float32"),
                                     ("nd", "nd", (2, 3), "float32")]:
        def run(value=value, shape=shape, dtype=dtype):
            if value == "nd":
                value = mx.nd.array([[1.0], [2.0]])
            arr = mx.nd.zeros(shape, dtype=dtype)
            I.Constant(value)(D("c_weight"), arr)
            return values(arr)
        out[key] = attempt(run)
    c = I.Constant(mx.nd.array([1, 2]))
    out["nd_dumps"] = c.dumps()
    out["nd_kwargs_after"] = c._kwargs
    arr = mx.nd.zeros((4,))
    I.Constant(7)(D("c_bias"), arr)
    out["bias_is_zero"] = values(arr)
    return out


FUSED = [("lstm", 1, False, 3, 2, "float32"), ("gru", 2, True, 3, 2, "float32"),
         ("rnn_tanh", 2, False, 2, 3, "float64"), ("rnn_relu", 1, True, 4, 1, "float32"),
         ("lstm", 2, True, 2, 2, "float16")]


def fused_size(mode, layers, bidirectional, ninput, hidden):
    gates = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}[mode]
    dirs = 2 if bidirectional else 1
    return sum(dirs * (gates * hidden * (ninput if layer == 0 else dirs * hidden)
                       + gates * hidden * hidden + 2 * gates * hidden)
               for layer in range(layers))


def case_fused(mx):
    Probe = probe_class(mx)
    I, D = mx.init, mx.init.InitDesc
    out = {}
    for mode, layers, bi, ninput, hidden, dtype in FUSED:
        size = fused_size(mode, layers, bi, ninput, hidden)
        key = f"{mode}|{layers}|{bi}|{ninput}|{hidden}|{dtype}"

        def direct(mode=mode, layers=layers, bi=bi, hidden=hidden, size=size, dtype=dtype):
            arr = mx.nd.zeros(size, dtype=dtype)
            I.FusedRNN(Probe(0.25), hidden, layers, mode, bi, forget_bias=0.5)(
                D("rnn_weight"), arr)
            return values(arr)

        def via_attr(mode=mode, layers=layers, bi=bi, hidden=hidden, size=size, dtype=dtype):
            arr = mx.nd.zeros(size, dtype=dtype)
            spec = I.FusedRNN(None, hidden, layers, mode, bi).dumps()
            Probe(1.0)(D("rnn_parameters", attrs={"__init__": spec}), arr)
            return values(arr)
        out[key + "|direct"] = attempt(direct)
        out[key + "|attr"] = attempt(via_attr)
    out["bad_size"] = attempt(
        lambda: I.FusedRNN(Probe(), 2, 1, "rnn_relu")(D("p_weight"), mx.nd.zeros(7)))
    out["bias_name"] = attempt(lambda: values(_fused_bias(mx, Probe)))
    return out


def _fused_bias(mx, Probe):
    arr = mx.nd.full(14, 3)
    mx.init.FusedRNN(Probe(), 2, 1, "rnn_relu")(mx.init.InitDesc("p_bias"), arr)
    return arr


def case_mixed(mx):
    I, D = mx.init, mx.init.InitDesc
    m = I.Mixed([".*bias", "fc.*", ".*"], [I.Zero(), I.One(), I.Constant(3)])
    out = {}
    for name in ["fc_bias", "fc_weight", "conv_weight", "xfc_gamma", "xfc_weight",
                 "bn_moving_mean"]:
        def run(name=name):
            arr = mx.nd.full(2, -1)
            m(D(name), arr)
            return values(arr)
        out[name] = attempt(run)

    def legacy():
        arr = mx.nd.full(2, -1)
        m("fc_weight", arr)
        return values(arr)
    out["legacy"] = attempt(legacy)

    def with_attr():
        arr = mx.nd.full(2, -1)
        m(D("fc_weight", attrs={"__init__": "zeros"}), arr)
        return values(arr)
    out["attr"] = attempt(with_attr)
    m2 = I.Mixed(["fc.*"], [I.One()])
    out["nomatch"] = attempt(lambda: m2(D("conv_weight"), mx.nd.zeros(2)))
    out["len_mismatch_type"] = attempt(lambda: I.Mixed(["a", "b"], [I.One()]))[:2]
    return out


def case_load(mx, path):
    I, D = mx.init, mx.init.InitDesc
    params = {"arg:fc_weight": mx.nd.array(np.arange(6).reshape(2, 3)),
              "aux:bn_moving_mean": mx.nd.full((3,), 2),
              "conv_bias": mx.nd.full((2,), 5)}
    mx.nd.save(path, params)
    out = {}
    for source in ("file", "dict"):
        loader = I.Load(path if source == "file" else params, default_init=I.Constant(9))
        out[source + "_keys"] = sorted(loader.param)
        for name, shape, dtype in [("fc_weight", (2, 3), "float32"),
                                   ("bn_moving_mean", (3,), "float64"),
                                   ("conv_bias", (2,), "float16"),
                                   ("other_weight", (2,), "float32"),
                                   ("arg:fc_weight", (2, 3), "float32")]:
            def run(name=name, shape=shape, dtype=dtype):
                arr = mx.nd.zeros(shape, dtype=dtype)
                loader(D(name), arr)
                return values(arr)
            out[f"{source}|{name}"] = attempt(run)
        out[source + "|mismatch"] = attempt(lambda: loader(D("fc_weight"), mx.nd.zeros((3, 2))))
    out["no_default"] = attempt(lambda: I.Load(params)(D("zz_weight"), mx.nd.zeros(2)))
    out["numpy_value"] = attempt(lambda: _load_np(mx))
    return out


def _load_np(mx):
    arr = mx.nd.zeros(2)
    mx.init.Load({"a_weight": np.ones((2,)) * 4})(mx.init.InitDesc("a_weight"), arr)
    return values(arr)


class _Capture(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def case_verbose(mx):
    I, D = mx.init, mx.init.InitDesc
    handler = _Capture()
    root = logging.getLogger()
    old = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        v = I.Constant(2).set_verbosity(True)
        for desc in [D("fc_weight"), D("fc_bias"), D("fc_gamma"), D("fc_beta"), D("q_min"),
                     D("q_max"), D("fc_x", attrs={"__init__": "ones"})]:
            v(desc, mx.nd.zeros(4))
        v(D("b_weight"), mx.nd.array([[1.0, 2.0, 3.0]]))
        v.set_verbosity(True, lambda x: "custom %s" % (x.shape,))
        v(D("fc_weight"), mx.nd.zeros(4))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v("fc_weight", mx.nd.zeros(4))
        I.Constant(3).set_verbosity(False)(D("fc_weight"), mx.nd.zeros(4))
        loader = I.Load({"arg:a_weight": mx.nd.ones(2)}, default_init=I.One(), verbose=True)
        loader(D("a_weight"), mx.nd.zeros(2))
        loader(D("b_weight"), mx.nd.zeros(2))
    finally:
        root.removeHandler(handler)
        root.setLevel(old)
    return {"lines": handler.lines,
            "returns_self": isinstance(I.Zero().set_verbosity(), I.Zero)}


def case_errors(mx):
    I, D = mx.init, mx.init.InitDesc
    return {
        "xavier_1d": attempt(lambda: I.Xavier()(D("w_weight"), mx.nd.zeros(5))),
        "xavier_factor": attempt(lambda: I.Xavier(factor_type="bad")(D("w_weight"),
                                                                      mx.nd.zeros((3, 3)))),
        "xavier_rnd": attempt(lambda: I.Xavier(rnd_type="bad")(D("w_weight"),
                                                                mx.nd.zeros((3, 3)))),
        "register_non_init": attempt(lambda: I.register(type("NotInit", (), {}))),
        "xavier_attrs": {k: v for k, v in vars(I.Xavier(magnitude=2)).items()
                         if k != "_print_func"},
        "msra_attrs": {k: v for k, v in vars(I.MSRAPrelu(slope=0.5)).items()
                       if k != "_print_func"},
    }


# -- random initializers: statistics ----------------------------------------------------
RANDOM = [
    ("xavier_uniform_avg", lambda I: I.Xavier(), (64, 32, 3, 3), "float32"),
    ("xavier_uniform_in", lambda I: I.Xavier(factor_type="in", magnitude=2), (200, 100),
     "float64"),
    ("xavier_gauss_out", lambda I: I.Xavier("gaussian", "out", 2.5), (128, 64, 5), "float32"),
    ("msra", lambda I: I.MSRAPrelu(), (64, 32, 3, 3), "float32"),
    ("msra_in_slope0", lambda I: I.MSRAPrelu("in", 0.0), (256, 128), "float16"),
    ("uniform", lambda I: I.Uniform(0.3), (100, 100), "float32"),
    ("normal", lambda I: I.Normal(0.5), (100, 100), "float64"),
]


def case_random_stats(mx):
    out = {}
    for key, make, shape, dtype in RANDOM:
        arr = mx.nd.zeros(shape, dtype=dtype)
        make(mx.init)(mx.init.InitDesc("w_weight"), arr)
        a = arr.asnumpy().astype(np.float64)
        out[key] = {"dtype": arr.asnumpy().dtype.name, "max_abs": float(np.abs(a).max()),
                    "mean": float(a.mean()), "std": float(a.std()), "size": int(a.size)}
    return out


CASES = ["dumps", "create", "equality", "dispatch", "legacy_checks", "attr_init", "initdesc",
         "bilinear", "lstmbias", "constant", "fused", "mixed", "verbose", "errors",
         "random_stats"]


def run_all(mx, load_path):
    """Every case's result (``load`` writes a params file to ``load_path``)."""
    out = {name: globals()["case_" + name](mx) for name in CASES}
    out["load"] = case_load(mx, load_path)
    return out
