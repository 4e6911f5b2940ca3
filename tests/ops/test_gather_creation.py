"""Indexing-by-array and creation operators: MXNet 1.9.1 fixture comparisons
(``tests/fixtures/gen_gather.py``), dtype rules, ``nd.arange`` and error cases."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.ndarray import _api

nd = mx.nd
FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "gather.npz")
DATA = np.load(FIXTURE)
CASES = json.loads(str(DATA["__cases__"]))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_against_mxnet(case):
    name = case["name"]
    inputs = [DATA[f"{name}/in{i}"] for i in range(case["n_in"])]
    arrs = [nd.array(a, dtype=a.dtype) for a in inputs]
    for i in case["grad"]:
        arrs[i].attach_grad()
    with mx.autograd.record():
        out = _api.function(case["op"])(*arrs, **case["attrs"])
    expected = DATA[f"{name}/out"]
    got = out.asnumpy()
    assert got.dtype == expected.dtype, f"{name}: dtype {got.dtype}, MXNet {expected.dtype}"
    assert got.shape == expected.shape, f"{name}: shape {got.shape}, MXNet {expected.shape}"
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7, err_msg=name)
    if case["grad"]:
        head = DATA[f"{name}/head"]
        out.backward(nd.array(head, dtype=head.dtype))
        for i in case["grad"]:
            np.testing.assert_allclose(arrs[i].grad.asnumpy(), DATA[f"{name}/grad{i}"],
                                       rtol=1e-5, atol=1e-6, err_msg=f"{name} grad{i}")


def test_nd_arange_dtypes_and_repeat():
    a = nd.arange(5)
    assert a.dtype == np.float32 and a.asnumpy().tolist() == [0, 1, 2, 3, 4]
    b = nd.arange(2, 10, 3, repeat=2)
    assert b.asnumpy().tolist() == [2, 2, 5, 5, 8, 8]
    c = nd.arange(0, 5, 1.5, dtype="int32")
    assert c.dtype == np.int32 and c.asnumpy().tolist() == [0, 1, 2, 3]


def test_creation_ops_accept_ctx_and_out():
    z = nd._internal._zeros(shape=(2, 2), ctx=mx.cpu())
    assert z.context == mx.cpu() and z.dtype == np.float32
    buf = nd.ones((3,))
    res = nd._internal._arange(start=3, out=buf)
    assert res is buf and buf.asnumpy().tolist() == [0, 1, 2]
    assert nd._internal._full(shape=(1,), value=2, ctx="cpu(0)").asnumpy()[0] == 2


@pytest.mark.parametrize("attrs,match", [
    (dict(start=5, stop=0, step=1), "Invalid range"),
    (dict(start=0, stop=5, step=-1), "Invalid range"),
    (dict(start=0, stop=5, step=0), "step=0"),
    (dict(start=3, stop=3), "Invalid range"),
])
def test_arange_errors(attrs, match):
    with pytest.raises(MXNetError, match=f"_arange.*{match}"):
        nd._internal._arange(**attrs)


def test_arange_infer_range_takes_its_length_from_the_graph():
    # MXNet's test_operator::test_init (test_arange_inferstop): with infer_range and no
    # stop the consumer's shape gives the length; values are start + (i // repeat) * step
    s = mx.sym.arange(start=2, stop=None, step=0.5, repeat=2, infer_range=True)
    s = mx.sym.elemwise_add(s, mx.sym.zeros(shape=[5]))
    assert s.infer_shape()[1] == [(5,)]
    out = s.bind(mx.cpu(), {}).forward()[0]
    assert out.asnumpy().tolist() == [2, 2, 2.5, 2.5, 3]
    with pytest.raises(MXNetError, match="_arange.*infer_range"):
        nd._internal._arange(start=2, infer_range=True)


def test_creation_needs_a_shape():
    with pytest.raises(MXNetError, match="_zeros"):
        nd._internal._zeros()


def test_take_raise_mode():
    a = nd.array(np.arange(12).reshape(3, 4))
    assert nd.take(a, nd.array([2, 0]), mode="raise").shape == (2, 4)
    with pytest.raises(MXNetError, match="take.*out of bounds"):
        nd.take(a, nd.array([5]), mode="raise")


def test_take_gradient_ignores_indices():
    a = nd.array(np.arange(6.0).reshape(3, 2))
    idx = nd.array([0, 0, 2])
    a.attach_grad()
    idx.attach_grad()
    with mx.autograd.record():
        y = nd.take(a, idx)
    y.backward()
    assert a.grad.asnumpy().tolist() == [[2, 2], [0, 0], [1, 1]]
    assert idx.grad.asnumpy().tolist() == [0, 0, 0]


def test_pick_needs_an_axis():
    with pytest.raises(MXNetError, match="pick.*axis"):
        nd.pick(nd.ones((2, 3)), nd.array([0, 1]), axis=None)


def test_gather_nd_out_of_bounds():
    with pytest.raises(MXNetError, match="gather_nd.*out of bounds"):
        nd.gather_nd(nd.ones((2, 3)), nd.array([[5], [0]]))


def test_index_ops_infer_types():
    take = mx.ops.get_op("take")
    attrs = take.parse_attrs({})
    assert take.infer_type(attrs, [np.dtype("float64"), np.dtype("int32")]) == \
        ([np.dtype("float64"), np.dtype("int32")], [np.dtype("float64")])
    one_hot = mx.ops.get_op("one_hot")
    attrs = one_hot.parse_attrs({"depth": 3})
    assert one_hot.infer_type(attrs, [np.dtype("int32")])[1] == [np.dtype("float32")]
    assert one_hot.infer_shape(attrs, [(2, 5)])[1] == [(2, 5, 3)]


def test_scatter_nd_infers_data_shape():
    op = mx.ops.get_op("scatter_nd")
    attrs = op.parse_attrs({"shape": (2, 2, 5)})
    assert op.infer_shape(attrs, [None, (2, 3)]) == ([(3, 5), (2, 3)], [(2, 2, 5)])


def test_aliases():
    for alias, canonical in [("choose_element_0index", "pick"), ("random_uniform",
                             "_random_uniform"), ("uniform", "_random_uniform"),
                             ("normal", "_random_normal"), ("shuffle", "_shuffle"),
                             ("sample_multinomial", "_sample_multinomial")]:
        assert mx.ops.get_op(alias) is mx.ops.get_op(canonical)
