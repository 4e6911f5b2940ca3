"""``random_pdf_*``, ``_sample_unique_zipfian`` and ``contrib.rand_zipfian`` against
MXNet 1.9.1 (fixture ``tests/fixtures/random_pdf.npz`` from ``gen_random_pdf.py``)."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.ndarray.zipfian import rand_zipfian
from gluonlite.symbol.zipfian import rand_zipfian as sym_rand_zipfian

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "random_pdf.npz")
DATA = np.load(FIXTURE)
META = json.loads(str(DATA["meta"]))
# MXNet evaluates float64 with approximations of its own (a float32 pi in the normal
# density, a digamma good to ~1e-6): float64 agrees to about 1e-6
TOL = {"float64": (2e-6, 1e-12), "float32": (2e-5, 1e-6), "float16": (2e-2, 2e-3)}


def _case_id(i):
    m = META[i]
    return f"{i}-{m['dist']}-{m['dtype']}-{'log' if m['is_log'] else 'pdf'}"


@pytest.mark.parametrize("i", range(len(META)), ids=[_case_id(i) for i in range(len(META))])
@pytest.mark.parametrize("api", ["public", "internal"])
def test_values_and_gradients(i, api):
    m = META[i]
    dt = m["dtype"]
    inputs = [mx.nd.array(DATA[f"c{i}_in{j}"], dtype=dt) for j in range(m["n"])]
    for a in inputs:
        a.attach_grad()
    fn = getattr(mx.nd, f"random_pdf_{m['dist']}") if api == "public" else \
        getattr(mx.nd._internal, f"_random_pdf_{m['dist']}")
    with mx.autograd.record():
        y = fn(*inputs, is_log=m["is_log"])
    y.backward(mx.nd.array(DATA[f"c{i}_head"], dtype=dt))
    rtol, atol = TOL[dt]
    want = DATA[f"c{i}_out"]
    assert y.shape == want.shape and y.dtype == want.dtype
    np.testing.assert_allclose(y.asnumpy(), want, rtol=rtol, atol=atol, err_msg="value")
    for j, a in enumerate(inputs):
        want = DATA[f"c{i}_grad{j}"]
        got = a.grad.asnumpy()
        assert got.dtype == want.dtype
        # float32 gradients can sum many terms of opposite sign; compare to their scale
        scale = np.nanmax(np.abs(np.where(np.isfinite(want), want, 0)), initial=0)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol + rtol * scale,
                                   err_msg=f"gradient of input {j}")


def test_symbol_and_namespaces():
    x, a, b = (mx.sym.var(n) for n in "xab")
    y = mx.sym.random_pdf_gamma(x, a, b, is_log=True)
    graph = json.loads(y.tojson())
    assert graph["nodes"][-1]["op"] == "_random_pdf_gamma"
    assert graph["nodes"][-1]["name"] == "random_pdf_gamma0"
    assert y.list_arguments() == ["x", "a", "b"]
    _, out, _ = y.infer_shape(x=(2, 3, 4), a=(2,), b=(2,))
    assert out == [(2, 3, 4)]
    _, out, _ = mx.sym.random_pdf_dirichlet(x, a).infer_shape(x=(2, 5, 3), a=(2, 3))
    assert out == [(2, 5)]
    _, out, _ = y.infer_type(x="float64")
    assert out == [np.float64]
    for name in ("uniform", "normal", "gamma", "exponential", "poisson", "negative_binomial",
                 "generalized_negative_binomial", "dirichlet"):
        assert callable(getattr(mx.nd, f"random_pdf_{name}"))
        assert callable(getattr(mx.nd.op, f"random_pdf_{name}"))
        assert callable(getattr(mx.nd._internal, f"_random_pdf_{name}"))
        assert callable(getattr(mx.sym, f"random_pdf_{name}"))
    assert callable(mx.nd._internal._sample_unique_zipfian)
    # loaded back from JSON with its attribute
    again = mx.sym.load_json(y.tojson())
    assert json.loads(again.tojson())["nodes"][-1]["attrs"] == {"is_log": "True"}


@pytest.mark.parametrize("call,pattern", [
    (lambda nd: nd.random_pdf_normal(nd.ones((2, 3)), nd.zeros((3,)), nd.ones((3,))),
     r"_random_pdf_normal.*\(2, 3\).*\(3,\)"),
    (lambda nd: nd.random_pdf_normal(nd.ones((2, 3)), nd.zeros((2,)), nd.ones((3,))),
     r"same shape"),
    (lambda nd: nd.random_pdf_normal(nd.ones((2,)), nd.zeros((2, 1)), nd.ones((2, 1))),
     r"leftmost"),
    (lambda nd: nd.random_pdf_dirichlet(nd.ones((2, 3)), nd.ones((4,))),
     r"_random_pdf_dirichlet.*\(2, 3\).*\(4,\)"),
    (lambda nd: nd.random_pdf_poisson(nd.ones((2,), dtype="int32"),
                                      nd.ones((2,), dtype="int32")), r"floating point"),
    (lambda nd: nd.random_pdf_exponential(nd.ones((2,), dtype="float32"),
                                          nd.ones((2,), dtype="float64")), r"dtype"),
    (lambda nd: nd._internal._sample_unique_zipfian(range_max=5, shape=(2, 6)),
     r"cannot exceed"),
    (lambda nd: nd._internal._sample_unique_zipfian(range_max=5, shape=(6,)), r"2-D"),
    (lambda nd: nd._internal._sample_unique_zipfian(shape=(2, 3)), r"range_max"),
])
def test_errors(call, pattern):
    with pytest.raises(MXNetError, match=pattern):
        call(mx.nd)


@pytest.mark.parametrize("range_max,num", [tuple(c) for c in DATA["zipf_cases"]])
def test_unique_zipfian_statistics(range_max, num):
    mx.random.seed(7)
    samples, trials = mx.nd._internal._sample_unique_zipfian(range_max=int(range_max),
                                                             shape=(4000, int(num)))
    s = samples.asnumpy()
    assert s.dtype == np.int64 and trials.dtype == np.int64
    freq = np.bincount(s.ravel(), minlength=range_max) / s.shape[0]
    want = DATA[f"zipf_{range_max}_{num}_freq"]
    # each class's inclusion frequency: binomial over 4000 rows, for both runs
    bound = 6 * np.sqrt(2 * want * (1 - want) / 4000) + 2e-3
    assert np.all(np.abs(freq - want) <= bound)
    mean = DATA[f"zipf_{range_max}_{num}_trials_mean"]
    std = DATA[f"zipf_{range_max}_{num}_trials_std"]
    assert abs(trials.asnumpy().mean() - mean) <= 6 * np.sqrt(2) * std / np.sqrt(4000)
    assert abs(trials.asnumpy().std() - std) <= 0.15 * std


def test_rand_zipfian_like_mxnet():
    mx.random.seed(3)
    samples, exp_true, exp_sampled = rand_zipfian(mx.nd.array(DATA["rz_true"]), 20000, 20)
    dtypes = json.loads(str(DATA["rz_dtypes"]))
    assert [samples.dtype.__name__, exp_true.dtype.__name__,
            exp_sampled.dtype.__name__] == dtypes
    assert samples.shape == (20000,) and exp_sampled.shape == (20000,)
    np.testing.assert_allclose(exp_true.asnumpy(), DATA["rz_exp_true"], rtol=1e-12)
    want = DATA["rz_freq"]
    freq = np.bincount(samples.asnumpy(), minlength=20) / 20000
    assert np.all(np.abs(freq - want) <= 6 * np.sqrt(2 * want / 20000) + 1e-3)
    # the expected count of each sampled class is a function of the class, as in MXNet
    table = dict(zip(DATA["rz_samples_head"].tolist(), DATA["rz_exp_sampled_head"].tolist()))
    got = dict(zip(samples.asnumpy().tolist(), exp_sampled.asnumpy().tolist()))
    for c in set(table) & set(got):
        assert got[c] == pytest.approx(table[c], rel=1e-12)


def test_rand_zipfian_symbol():
    t = mx.sym.var("t")
    samples, exp_true, exp_sampled = sym_rand_zipfian(t, 6, 10)
    assert samples.infer_type()[1] == [np.int64]
    assert exp_true.infer_type(t="float32")[1] == [np.float64]
    out = exp_true.eval(t=mx.nd.array([0, 3]))[0].asnumpy()
    np.testing.assert_allclose(out, np.log([2.0, 5 / 4]) / np.log(11) * 6, rtol=1e-12)
    s = samples.eval()[0].asnumpy()
    assert s.shape == (6,) and s.min() >= 0 and s.max() < 10
    with pytest.raises(MXNetError):
        sym_rand_zipfian(mx.nd.array([1]), 2, 5)
