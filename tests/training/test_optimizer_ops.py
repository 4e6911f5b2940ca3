"""Optimizer update operators against MXNet 1.9.1 (fixture ``training/optimizer_ops``):
the returned weight and every mutated state."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ops.registry import get_op

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "training")
with open(os.path.join(HERE, "optimizer_ops.json")) as _f:
    SPEC = json.load(_f)
DATA = np.load(os.path.join(HERE, "optimizer_ops.npz"))


def _call(op_name, nds, attrs):
    fn = getattr(mx.nd, op_name, None) or getattr(mx.nd._internal, op_name)
    if op_name.startswith("_multi_"):
        step = (len(nds) - 1) // attrs["num_weights"]
        return fn(*nds, out=nds[:-1:step], **attrs)
    if op_name.startswith("multi_") and "num_weights" in attrs:
        step = len(nds) // attrs["num_weights"]
        return fn(*nds, out=nds[::step], **attrs)
    if op_name.endswith("adamw_update") or op_name == "nag_mom_update":
        return fn(*nds, out=nds[0], **attrs)
    return fn(*nds, **attrs)


@pytest.mark.parametrize("case", sorted(SPEC))
def test_update_matches_mxnet(case):
    op_name, attrs, n_in, n_out = SPEC[case]
    inputs = [DATA[f"{case}/in{i}"] for i in range(n_in)]
    nds = [mx.nd.array(x, dtype=x.dtype) for x in inputs]
    out = _call(op_name, nds, attrs)
    outs = out if isinstance(out, list) else [out]
    assert len(outs) == n_out
    for i, o in enumerate(outs):
        want = DATA[f"{case}/out{i}"]
        assert o.dtype == want.dtype, (case, i)
        tol = 2e-3 if want.dtype == np.float16 else 1e-5
        np.testing.assert_allclose(o.asnumpy(), want, rtol=tol, atol=tol, err_msg=f"out{i}")
    for i in range(n_in):
        want = DATA[f"{case}/after{i}"]
        tol = 2e-3 if want.dtype == np.float16 else 1e-5
        np.testing.assert_allclose(nds[i].asnumpy(), want, rtol=tol, atol=tol,
                                   err_msg=f"input {i} after the update")


def test_out_weight_is_updated_in_place():
    w = mx.nd.array([1.0, 2.0])
    g = mx.nd.array([0.5, -0.5])
    mom = mx.nd.zeros((2,))
    version = w._version if hasattr(w, "_version") else None
    res = mx.nd.sgd_mom_update(w, g, mom, out=w, lr=0.1, momentum=0.9)
    assert res is w
    np.testing.assert_allclose(w.asnumpy(), [0.95, 2.05])
    np.testing.assert_allclose(mom.asnumpy(), [-0.05, 0.05])
    if version is not None:
        assert w._version != version


def test_states_are_auxiliary_and_ops_not_differentiable():
    op = get_op("adam_update")
    assert op.aux_names == ("mean", "var") and not op.differentiable
    assert get_op("_contrib_adamw_update") is get_op("_adamw_update")
    assert mx.nd.contrib.adamw_update is not None


def test_shape_mismatch_names_the_operator():
    with pytest.raises(mx.MXNetError, match="sgd_mom_update"):
        mx.nd.sgd_mom_update(mx.nd.ones((2, 3)), mx.nd.ones((3, 2)), mx.nd.zeros((2, 3)), lr=0.1)
    with pytest.raises(mx.MXNetError, match="multi_sgd_update"):
        mx.nd.multi_sgd_update(mx.nd.ones((2,)), mx.nd.ones((2,)), lrs=(0.1, 0.2), wds=(0.0,),
                               num_weights=1)


@pytest.mark.parametrize("op_name,n_states", [("sgd_mom_update", 1), ("adam_update", 2),
                                              ("multi_sgd_mom_update", 1)])
def test_blocked_two_thread_path_matches_whole_array_rule(op_name, n_states):
    """Arrays above the block size run in cache-sized blocks on two threads; the result,
    in place or not, equals the rule applied to the whole arrays at once."""
    from gluonlite.ops import _blocked
    rng = np.random.default_rng(2)
    size = 3 * _blocked._BLOCK + 123  # several blocks and a ragged end, two threads
    arrays = [rng.standard_normal(size).astype(np.float32) for _ in range(2 + n_states)]
    if op_name == "adam_update":
        arrays[3] = np.abs(arrays[3])
    attrs = dict(lr=0.1, wd=0.01, clip_gradient=0.5, rescale_grad=0.7)
    if op_name == "multi_sgd_mom_update":
        attrs = dict(lrs=(0.1,), wds=(0.01,), momentum=0.9, num_weights=1)
    elif op_name == "sgd_mom_update":
        attrs["momentum"] = 0.9

    def run(blocked, in_place):
        saved = _blocked._BLOCK
        if not blocked:
            _blocked._BLOCK = 1 << 40  # never block: the whole-array rule
        try:
            nds = [mx.nd.array(a) for a in arrays]
            fn = getattr(mx.nd, op_name)
            out = fn(*nds, out=nds[0] if in_place else None, **attrs)
            out = out[0] if isinstance(out, list) else out
            return [out.asnumpy()] + [x.asnumpy() for x in nds[2:]]
        finally:
            _blocked._BLOCK = saved

    reference = run(blocked=False, in_place=False)
    for in_place in (False, True):
        for got, want in zip(run(blocked=True, in_place=in_place), reference):
            np.testing.assert_array_equal(got, want)


def test_contrib_adamw_wrappers_take_rescale_grad_as_a_number():
    # GluonNLP's BERTAdam imports nd.contrib.multi_adamw_update / multi_mp_adamw_update
    # and passes rescale_grad as a float, which MXNet's Python wrapper makes an array;
    # values from MXNet 1.9.1
    from gluonlite.ndarray.contrib import (adamw_update, multi_adamw_update,  # noqa: F401
                                           multi_mp_adamw_update)
    w = mx.nd.ones((3,))
    out = adamw_update(w, mx.nd.ones((3,)), mx.nd.zeros((3,)), mx.nd.zeros((3,)),
                       rescale_grad=1.0, lr=0.1, eta=1.0)
    np.testing.assert_array_equal(out.asnumpy(), np.full(3, 0.68377024, np.float32))
    ws = [mx.nd.ones((3,)), mx.nd.ones((2,))]
    gs = [mx.nd.ones((3,)), mx.nd.ones((2,)) * 2]
    ms = [mx.nd.zeros((3,)), mx.nd.zeros((2,))]
    vs = [mx.nd.zeros((3,)), mx.nd.zeros((2,))]
    multi_adamw_update(ws, gs, ms, vs, 0.5, lrs=[0.1, 0.2], wds=[0.0, 0.1], etas=[1.0, 1.0],
                       out=ws)
    np.testing.assert_allclose(ws[0].asnumpy(), [0.6837703] * 3, rtol=1e-7)
    np.testing.assert_allclose(ws[1].asnumpy(), [0.26754045] * 2, rtol=1e-7)
    np.testing.assert_allclose(ms[1].asnumpy(), [0.10000002] * 2, rtol=1e-7)
    np.testing.assert_allclose(vs[1].asnumpy(), [0.00099999] * 2, rtol=1e-5)
