"""Parameter, Constant and ParameterDict against MXNet 1.9.1.

The scenarios of ``parameter_scenarios.py`` ran on MXNet (``gen_parameter.py``); here
they run on gluonlite and must give the same results, errors (type and message) and
warnings.  The other tests read files MXNet wrote and check gluonlite's documented
deviations.
"""
import json
import os
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon
from gluonlite.base import MXNetError
from gluonlite.gluon import Constant, DeferredInitializationError, Parameter, ParameterDict

from . import parameter_scenarios as scen

SCENARIOS = scen.all_scenarios()

FIX = os.path.join(os.path.dirname(__file__), "..", "fixtures", "parameter")

with open(os.path.join(FIX, "scenarios.json")) as _f:
    EXPECTED = json.load(_f)

# gluonlite adds the parameter's name to the shape-setter message (MXNet's names none)
NAMED_SHAPE_ERROR = {"set_data_shape_mismatch"}
# plain dict lookups raise a plain KeyError, as a dict does
PLAIN_ERRORS = {"dict_missing_key"}


def test_every_scenario_has_a_recording():
    assert sorted(EXPECTED) == sorted(SCENARIOS)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_matches_mxnet(name, tmp_path):
    mx.random.seed(0)
    got = scen.run(SCENARIOS[name], mx, str(tmp_path))
    want = EXPECTED[name]
    assert got["warnings"] == want["warnings"]
    if "error" not in want:
        assert "error" not in got, got
        assert got["result"] == want["result"]
        return
    assert "error" in got, f"expected {want['error']}: {want['message']}, got {got}"
    if want["error"] == "DeferredInitializationError":
        assert got["error"] == "DeferredInitializationError"
    if name in NAMED_SHAPE_ERROR:
        assert got["message"].startswith(want["message"][:-1])
        assert got["message"].endswith("for Parameter 'w'.")
    else:
        assert got["message"] == want["message"]


def _mro_names(name, tmp_path):
    """Class names of the error a scenario raises (it is both MXNetError and the
    built-in type MXNet raises)."""
    try:
        SCENARIOS[name](mx, str(tmp_path))
    except Exception as err:  # noqa: BLE001
        names = [c.__name__ for c in type(err).__mro__]
        if name not in PLAIN_ERRORS:
            assert isinstance(err, MXNetError), names
        return names
    raise AssertionError("no error raised")


@pytest.mark.parametrize("name", sorted(n for n, v in EXPECTED.items()
                                        if "error" in v and n not in PLAIN_ERRORS))
def test_scenario_errors_are_mxnet_errors(name, tmp_path):
    names = _mro_names(name, str(tmp_path))
    assert EXPECTED[name]["builtin"] in names


# -- files MXNet wrote ---------------------------------------------------------------------
def _pdict_target(prefix="net_"):
    d = ParameterDict(prefix)
    for name, dtype in (("weight", "float32"), ("bias", "float32"), ("half", "float16"),
                        ("double", "float64"), ("index", "int32")):
        d.get(name, dtype=dtype, shape=(0,) if name == "bias" else None,
              allow_deferred_init=True)
    return d


def test_load_params_mxnet_wrote():
    values = np.load(os.path.join(FIX, "pdict_values.npz"))
    d = _pdict_target()
    d.load(os.path.join(FIX, "pdict.params"))
    for name in values.files:
        got = d[name].data()
        assert got.dtype == values[name].dtype, name
        np.testing.assert_array_equal(got.asnumpy(), values[name])
        assert d[name].shape == values[name].shape
        assert d[name].grad().shape == values[name].shape
    e = _pdict_target()
    e.load(os.path.join(FIX, "pdict_stripped.params"), restore_prefix="net_")
    np.testing.assert_array_equal(e["net_half"].data().asnumpy(), values["net_half"])


def test_save_is_byte_identical_to_mxnet(tmp_path):
    values = np.load(os.path.join(FIX, "pdict_values.npz"))
    d = ParameterDict("net_")
    for name in ("weight", "bias", "half", "double", "index"):
        v = values["net_" + name]
        p = d.get(name, shape=v.shape, dtype=v.dtype, init="zeros")
        p.initialize()
        p.set_data(mx.nd.array(v, dtype=v.dtype))
    for fname, strip in (("pdict.params", ""), ("pdict_stripped.params", "net_")):
        out = tmp_path / fname
        d.save(str(out), strip_prefix=strip)
        with open(os.path.join(FIX, fname), "rb") as f:
            assert out.read_bytes() == f.read()


def _tiny():
    with open(os.path.join(FIX, "tiny_manifest.json")) as f:
        manifest = json.load(f)
    return manifest, np.load(os.path.join(FIX, "tiny_io.npz"))


def test_load_save_parameters_file_structural_names():
    manifest, io = _tiny()
    d = ParameterDict()
    full_names = list(manifest["collect_params"])
    for key, full in zip(manifest["save_parameters_keys"], full_names):
        d.get(key, allow_deferred_init=True)
    d.load(os.path.join(FIX, "tiny_net.params"), ctx=mx.cpu())
    for key, full in zip(manifest["save_parameters_keys"], full_names):
        spec = manifest["collect_params"][full]
        assert list(d[key].shape) == spec["shape"]
        np.testing.assert_array_equal(d[key].data().asnumpy(), io["param:" + full])


def test_load_exported_params_arg_aux():
    manifest, io = _tiny()
    d = ParameterDict(manifest["prefix"])
    for full, spec in manifest["collect_params"].items():
        d.get(full[len(manifest["prefix"]):], shape=tuple(spec["shape"][:1]) +
              (0,) * (len(spec["shape"]) - 1), grad_req=spec["grad_req"],
              allow_deferred_init=True)
    d.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    d.load(os.path.join(FIX, "tiny-0000.params"))
    for full, spec in manifest["collect_params"].items():
        p = d[full]
        assert p.list_ctx() == [mx.cpu(0), mx.cpu(1)]
        for c in p.list_ctx():
            np.testing.assert_array_equal(p.data(c).asnumpy(), io["param:" + full])
        if spec["grad_req"] == "null":
            with pytest.raises(MXNetError, match="grad_req='null'"):
                p.grad()


def test_select_regex_like_collect_params():
    manifest, _ = _tiny()
    d = ParameterDict(manifest["prefix"])
    for full in manifest["collect_params"]:
        d.get(full[len(manifest["prefix"]):])
    sel = d._select(".*weight|.*bias")
    assert list(sel.keys()) == manifest["collect_params_weight_bias"]
    assert sel.prefix == d.prefix
    assert all(sel[k] is d[k] for k in sel.keys())
    assert list(d._select(None).keys()) == list(d.keys())
    # re.match: anchored at the start only
    assert list(d._select("weight").keys()) == []
    assert list(d._select(".*conv0").keys()) == [k for k in d.keys() if "conv0" in k]


# -- autograd and contexts ---------------------------------------------------------------------
def test_gradients_per_context():
    p = Parameter("w", shape=(2, 3), init="ones")
    p.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    with autograd.record():
        y = (p.data(mx.cpu(1)) * 3).sum()
    y.backward()
    np.testing.assert_array_equal(p.grad(mx.cpu(1)).asnumpy(), np.full((2, 3), 3.0))
    np.testing.assert_array_equal(p.grad(mx.cpu(0)).asnumpy(), np.zeros((2, 3)))
    assert p.data().grad is p.grad()          # the data array carries its gradient
    assert [g.context for g in p.list_grad()] == [mx.cpu(0), mx.cpu(1)]


def test_set_data_does_not_cut_the_graph_leaf():
    p = Parameter("w", shape=(3,), init="zeros")
    p.initialize()
    with autograd.record():
        p.set_data(mx.nd.array([1, 2, 3]))
        y = (p.data() * p.data()).sum()
    y.backward()
    np.testing.assert_array_equal(p.grad().asnumpy(), [2, 4, 6])


def test_cast_keeps_gradients_attached():
    p = Parameter("w", shape=(2,), init="ones")
    p.initialize()
    p.cast("float64")
    with autograd.record():
        y = (p.data() * 5).sum()
    y.backward()
    assert p.grad().dtype == np.float64
    np.testing.assert_array_equal(p.grad().asnumpy(), [5, 5])


def test_zero_grad_in_place():
    p = Parameter("w", shape=(2,), init="ones")
    p.initialize()
    g = p.grad()
    with autograd.record():
        y = (p.data() * 2).sum()
    y.backward()
    p.zero_grad()
    assert p.grad() is g
    np.testing.assert_array_equal(g.asnumpy(), [0, 0])


def test_reset_ctx_averages():
    p = Parameter("w", shape=(2,), init="ones")
    p.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    p.data(mx.cpu(1))[:] = 5
    p.reset_ctx(mx.cpu(2))
    assert p.list_ctx() == [mx.cpu(2)]
    assert p.data().context == mx.cpu(2)
    np.testing.assert_array_equal(p.data().asnumpy(), [3, 3])


# -- deviations from MXNet (documented) and gluonlite specifics ----------------------------------
def test_shape_setter_error_names_parameter():
    p = Parameter("dense0_weight", shape=(10, 5))
    with pytest.raises(AssertionError) as info:
        p.shape = (10, 6)
    assert isinstance(info.value, MXNetError)
    assert str(info.value) == ("Expected shape (10, 6) is incompatible with given shape "
                               "(10, 5) for Parameter 'dense0_weight'.")


def test_shapes_are_tuples():
    p = Parameter("w", shape=[3, 4])
    assert p.shape == (3, 4)
    q = Parameter("q")
    q.shape = [2, 0]
    q.shape = 2, 5
    assert q.shape == (2, 5)


def test_load_rank_mismatch_is_an_error(tmp_path):
    path = str(tmp_path / "a.params")
    mx.nd.save(path, {"w": mx.nd.ones((2, 3))})
    d = ParameterDict()
    d.get("w", shape=(2,))        # MXNet 1.9.1 loads this silently (zip truncates)
    with pytest.raises(AssertionError, match=r"shape incompatible expected \(2,\) vs saved "
                                             r"\(2, 3\)"):
        d.load(path)


def test_load_into_unknown_shape_sets_it(tmp_path):
    path = str(tmp_path / "a.params")
    mx.nd.save(path, {"w": mx.nd.ones((2, 3))})
    d = ParameterDict()
    w = d.get("w")                # MXNet leaves shape None here
    d.load(path)
    assert w.shape == (2, 3)


def test_load_list_file_is_an_error(tmp_path):
    path = str(tmp_path / "l.params")
    mx.nd.save(path, [mx.nd.ones((2,))])
    d = ParameterDict()
    d.get("w")
    with pytest.raises(TypeError, match="without names") as info:
        d.load(path)
    assert isinstance(info.value, MXNetError)


def test_load_bad_dtype_source(tmp_path):
    path = str(tmp_path / "a.params")
    mx.nd.save(path, {"w": mx.nd.ones((2,))})
    d = ParameterDict()
    d.get("w", dtype="float16")
    with pytest.raises(AssertionError, match="dtype_source must be 'current' or 'saved'"):
        d.load(path, cast_dtype=True, dtype_source="bad")


def test_sparse_storage_types():
    w = Parameter("w", shape=(2,), stype="row_sparse")
    assert w.stype == "row_sparse"
    p = Parameter("e", shape=(4, 2), grad_stype="row_sparse", init="ones")
    p.initialize()
    with autograd.record():
        y = p.data().sum()
    y.backward()
    assert p.grad().stype == "row_sparse"
    np.testing.assert_array_equal(p.grad().asnumpy(), np.ones((4, 2)))


def test_get_constant_with_list_value_compares():
    d = ParameterDict("x_")
    k = d.get_constant("k", [1, 2, 3])
    assert d.get_constant("k", [1, 2, 3]) is k   # MXNet raises AttributeError here
    with pytest.raises(AssertionError, match="doesn't match new value"):
        d.get_constant("k", [1, 2])


def test_dict_len_contains_bool():
    d = ParameterDict("p_")
    assert len(d) == 0 and bool(d)               # always true, as MXNet's
    d.get("a")
    assert len(d) == 1 and "p_a" in d and "a" not in d


def test_get_shape_none_keeps_stored():
    d = ParameterDict()
    w = d.get("w", shape=(2, 3))
    assert d.get("w", shape=None) is w and w.shape == (2, 3)


def test_constant_initializer_is_registered():
    c = Constant("c", [[1, 2], [3, 4]])
    arr = mx.nd.zeros((2, 2))
    mx.init.create(c.init)._init_weight(mx.init.InitDesc("c"), arr)
    np.testing.assert_array_equal(arr.asnumpy(), [[1, 2], [3, 4]])
    assert c.grad_req == "null"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        c.grad_req = "add"
    assert c.grad_req == "null" and len(caught) == 1


def test_deferred_error_class():
    p = Parameter("w", shape=(0,), allow_deferred_init=True)
    p.initialize()
    with pytest.raises(DeferredInitializationError):
        p.data()
    assert issubclass(DeferredInitializationError, MXNetError)
    assert gluon.parameter.DeferredInitializationError is DeferredInitializationError


def test_set_data_resets_trainer_kvstore():
    class FakeTrainer:
        _kv_initialized = True
        _update_on_kvstore = True
        _params_to_init = []
        resets = 0

        def _reset_kvstore(self):
            self.resets += 1

    t = FakeTrainer()
    p = Parameter("w", shape=(2,), init="zeros")
    p.initialize()
    p._set_trainer(t)
    p.set_data(mx.nd.ones((2,)))
    assert t.resets == 1
    t._params_to_init = [p]
    p.set_data(mx.nd.ones((2,)))
    assert t.resets == 1
    p._set_trainer(None)
    assert p._trainer is None


def test_var_before_initialize_and_mxnet_alias():
    p = Parameter("fc_weight", shape=(4, 0), lr_mult=0.5)
    v = p.var()
    assert v.name == "fc_weight" and p.var() is v
    assert v.list_attr()["__shape__"] == "(4, 0)"
    assert mx.gluon.Parameter is Parameter


def test_initialize_on_cpu_then_copied():
    # the initializer sees one CPU array; every context gets the same values
    mx.random.seed(3)
    p = Parameter("w", shape=(3, 4))
    p.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    np.testing.assert_array_equal(p.data(mx.cpu(0)).asnumpy(), p.data(mx.cpu(1)).asnumpy())
    mx.random.seed(3)
    q = Parameter("w", shape=(3, 4))
    q.initialize(ctx=mx.cpu(1))
    np.testing.assert_array_equal(q.data().asnumpy(), p.data().asnumpy())


@pytest.mark.gpu
def test_gpu_copies_and_gradients(tmp_path):
    p = Parameter("w", shape=(2, 3), init="ones")
    p.initialize(ctx=[mx.gpu(0), mx.cpu(0)])
    assert p.data(mx.gpu(0)).context == mx.gpu(0)
    with autograd.record():
        y = (p.data(mx.gpu(0)) * 2).sum()
    y.backward()
    np.testing.assert_array_equal(p.grad(mx.gpu(0)).asnumpy(), np.full((2, 3), 2.0))
    p.data(mx.gpu(0))[:] = 3
    r = p._reduce()
    assert r.context == mx.cpu(0)
    np.testing.assert_array_equal(r.asnumpy(), np.full((2, 3), 2.0))
    d = ParameterDict()
    d._params["w"] = p
    d.save(str(tmp_path / "g.params"))
    e = ParameterDict()
    e.get("w", shape=(2, 3))
    e.load(str(tmp_path / "g.params"), ctx=mx.gpu(0))
    assert e["w"].data().context == mx.gpu(0)
    np.testing.assert_array_equal(e["w"].data().asnumpy(), np.full((2, 3), 2.0))
    p.cast("float16")
    assert p.grad(mx.gpu(0)).dtype == np.float16
