"""``hard_sigmoid``, ``cumsum``, ``diag``, ``khatri_rao``, ``moments``, ``_histogram``,
``ravel_multi_index``, ``unravel_index``, ``all_finite`` and ``multi_all_finite``
against MXNet 1.9.1 (fixture from ``tests/fixtures/gen_math_extra.py``), plus the
behaviours a replay cannot show (errors, ``init_output=False`` with ``out``, graph
JSON names), as observed in MXNet 1.9.1.
"""
import json

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError

from . import mxnet_replay

DATA, CASES = mxnet_replay.load("math_extra.npz")
nd = mx.nd


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_against_mxnet(case):
    mxnet_replay.check(case, DATA)


def test_all_finite_init_output_false_only_clears_out():
    flag = nd.array([7.0])
    nd.all_finite(nd.array([1.0, 2.0]), init_output=False, out=flag)
    assert flag.asnumpy().tolist() == [7.0]
    nd.all_finite(nd.array([1.0, np.inf]), init_output=False, out=flag)
    assert flag.asnumpy().tolist() == [0.0]
    nd.all_finite(nd.array([1.0, 2.0]), out=flag)  # init_output=True resets it
    assert flag.asnumpy().tolist() == [1.0]


def test_multi_all_finite_accumulates_over_chunks():
    flag = nd.ones((1,))
    grads = [nd.ones((2, 2)), nd.array([1.0, np.nan]), nd.ones((3,))]
    nd.multi_all_finite(*grads[:1], num_arrays=1, init_output=False, out=flag)
    assert flag.asnumpy().tolist() == [1.0]
    nd.multi_all_finite(*grads[1:], num_arrays=2, init_output=False, out=flag)
    assert flag.asnumpy().tolist() == [0.0]
    assert flag.dtype == np.float32


def test_names_and_namespaces():
    assert nd.cumsum is nd.op.cumsum
    assert hasattr(nd._internal, "_np_cumsum") and hasattr(nd._internal, "_histogram")
    assert nd.ravel_multi_index is not None and nd.unravel_index is not None
    x = nd.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(x.diag().asnumpy(), [1.0, 4.0])  # fluent, as MXNet


@pytest.mark.parametrize("make,op,attrs", [
    (lambda x: mx.sym.cumsum(x, axis=1, dtype="float64"), "_np_cumsum",
     {"axis": "1", "dtype": "float64"}),
    (lambda x: mx.sym.ravel_multi_index(x, shape=(2, 3)), "_ravel_multi_index",
     {"shape": "(2, 3)"}),
    (lambda x: mx.sym.unravel_index(x, shape=(2, 3)), "_unravel_index",
     {"shape": "(2, 3)"}),
    (lambda x: mx.sym.moments(x, axes=(1, 2), keepdims=True), "moments",
     {"axes": "(1, 2)", "keepdims": "True"}),
    (lambda x: mx.sym._internal._histogram(x, bin_cnt=3), None, None),
])
def test_symbol_json(make, op, attrs):
    x = mx.sym.var("x")
    if op is None:  # bin_cnt without range: refused, as MXNet does
        with pytest.raises(MXNetError):
            make(x).infer_shape(x=(2, 3))
        return
    node = json.loads(make(x).tojson())["nodes"][-1]
    assert node["op"] == op
    assert node["attrs"] == attrs


def test_moments_symbol_outputs():
    s = mx.sym.moments(mx.sym.var("x"), axes=(1,))
    assert len(s.list_outputs()) == 2
    _, outs, _ = s.infer_shape(x=(2, 3))
    assert outs == [(2,), (2,)]


_ERRORS = [
    ("hard_sigmoid", [np.array([1, 2], np.int32)], {}),
    ("cumsum", [np.ones((2, 3))], dict(axis=2)),
    ("cumsum", [np.ones((2, 3))], dict(dtype="uint8")),
    ("diag", [np.ones((3, 4))], dict(k=5)),
    ("diag", [np.ones((3, 4))], dict(k=-4)),
    ("diag", [np.ones((3, 4))], dict(axis1=0, axis2=0)),
    ("diag", [np.ones((2, 3, 4))], dict(axis1=3)),
    ("diag", [np.array(5.0)], {}),
    ("khatri_rao", [np.ones((2, 2)), np.ones((3, 3))], {}),
    ("khatri_rao", [np.ones((2, 2, 2)), np.ones((2, 2))], {}),
    ("khatri_rao", [np.ones((2, 2), np.int32), np.ones((2, 2), np.int32)], {}),
    ("khatri_rao", [np.ones((2, 2)), np.ones((2, 2), np.float32)], {}),
    ("moments", [np.ones((2, 3))], {}),
    ("moments", [np.ones((2, 3))], dict(axes=(1, -1))),
    ("moments", [np.ones((2, 3))], dict(axes=(-3,))),
    ("moments", [np.ones((2, 3))], dict(axes=(2,))),
    ("_histogram", [np.ones(4)], dict(bin_cnt=3)),
    ("_histogram", [np.ones(4)], dict(bin_cnt=3, range=(4, 0))),
    ("_histogram", [np.ones(4)], dict(bin_cnt=3, range=(0, 1, 2))),
    ("_histogram", [np.ones(4), np.array([1.0])], {}),
    ("_histogram", [np.ones(4), np.ones((2, 2))], {}),
    ("_histogram", [np.ones(4), np.array([0, 1, 2], np.float32)], {}),
    ("ravel_multi_index", [np.ones((2, 3))], {}),
    ("ravel_multi_index", [np.ones((2, 3))], dict(shape=(7, 6, 2))),
    ("ravel_multi_index", [np.ones((2, 2, 3))], dict(shape=(7, 6))),
    ("ravel_multi_index", [np.ones(2)], dict(shape=(7, 6))),
    ("all_finite", [np.array([1, 2], np.int32)], {}),
    ("multi_all_finite", [np.ones(2), np.ones(2)], dict(num_arrays=1)),
]


@pytest.mark.parametrize("op,inputs,attrs", _ERRORS,
                         ids=[f"{e[0]}-{i}" for i, e in enumerate(_ERRORS)])
def test_errors_mxnet_refuses(op, inputs, attrs):
    fn = getattr(nd, op, None) or getattr(nd._internal, op)
    arrs = [nd.array(a, dtype=a.dtype) for a in inputs]
    with pytest.raises(MXNetError) as err:
        fn(*arrs, **attrs)
    assert op.lstrip("_") in str(err.value)


def test_no_gradient_where_mxnet_has_none():
    from gluonlite.ops.registry import get_op
    for name in ("khatri_rao", "_histogram", "all_finite", "multi_all_finite"):
        assert not get_op(name).differentiable, name
    x = nd.array([[1.5, 2.5], [0.5, 1.5]])
    x.attach_grad()
    with mx.autograd.record():
        y = nd.ravel_multi_index(x, shape=(3, 4))
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), np.zeros((2, 2)))
