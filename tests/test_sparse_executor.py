"""Storage types in ``simple_bind`` and sparse gradient buffers of the Executor.

The expected storage types are MXNet 1.9.1's (``simple_bind`` on the same symbols):
``Embedding(sparse_grad=True)`` and ``contrib.SparseEmbedding`` give a row_sparse
weight gradient, ``dot(csr, w)`` a row_sparse ``w`` gradient but not with
``transpose_a``, and a ``Variable(stype=...)`` argument is bound with that type.
"""
import numpy as np
import pytest

import gluonlite as mx


def _stypes(arrays):
    return [None if a is None else a.stype for a in arrays]


@pytest.mark.parametrize("transpose_a,grad", [(False, "row_sparse"), (True, "default")])
def test_dot_csr_gradient_storage(transpose_a, grad):
    x = mx.sym.Variable("x", stype="csr")
    w = mx.sym.Variable("w")
    y = mx.sym.sparse.dot(x, w, transpose_a=transpose_a)
    shapes = dict(x=(6, 4) if transpose_a else (4, 6), w=(6, 3))
    exe = y.simple_bind(mx.cpu(), **shapes)
    assert _stypes(exe.arg_arrays) == ["csr", "default"]
    assert _stypes(exe.grad_arrays) == ["default", grad]


@pytest.mark.parametrize("scale", [False, True])
def test_embedding_sparse_grad_written_into_row_sparse_buffer(scale):
    data = mx.sym.Variable("data")
    weight = mx.sym.Variable("w")
    emb = mx.sym.Embedding(data, weight, input_dim=10, output_dim=3, sparse_grad=True)
    out = emb * 2 if scale else emb
    exe = out.simple_bind(mx.cpu(), grad_req={"data": "null", "w": "write"}, data=(4,))
    assert _stypes(exe.grad_arrays) == [None, "row_sparse"]
    idx = np.array([1, 7, 1, 3])
    w = np.random.default_rng(0).standard_normal((10, 3)).astype(np.float32)
    exe.arg_dict["data"][:] = idx
    exe.arg_dict["w"][:] = w
    exe.forward(is_train=True)
    head = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)
    exe.backward([mx.nd.array(head)])
    onehot = np.zeros((4, 10), np.float32)
    onehot[np.arange(4), idx] = 1
    g = exe.grad_dict["w"]
    assert g.stype == "row_sparse"
    np.testing.assert_allclose(g.asnumpy(), onehot.T @ head * (2 if scale else 1), rtol=1e-6)


def test_sparse_embedding_and_declared_argument_storage():
    data = mx.sym.Variable("data")
    weight = mx.sym.Variable("w", stype="row_sparse")
    out = mx.sym.contrib.SparseEmbedding(data, weight, input_dim=10, output_dim=3)
    exe = out.simple_bind(mx.cpu(), data=(4,))
    assert _stypes(exe.arg_arrays) == ["default", "row_sparse"]
    assert _stypes(exe.grad_arrays) == ["default", "row_sparse"]


def test_add_mode_accumulates_into_sparse_buffer():
    data = mx.sym.Variable("data")
    weight = mx.sym.Variable("w")
    emb = mx.sym.Embedding(data, weight, input_dim=5, output_dim=2, sparse_grad=True)
    exe = emb.simple_bind(mx.cpu(), grad_req={"data": "null", "w": "add"}, data=(2,))
    exe.arg_dict["data"][:] = np.array([0, 3])
    exe.arg_dict["w"][:] = np.ones((5, 2))
    for _ in range(2):
        exe.forward(is_train=True)
        exe.backward([mx.nd.ones((2, 2))])
    want = np.zeros((5, 2), np.float32)
    want[[0, 3]] = 2
    np.testing.assert_array_equal(exe.grad_dict["w"].asnumpy(), want)
    assert exe.grad_dict["w"].stype == "row_sparse"


def test_stype_dict_overrides_declared_storage():
    x = mx.sym.Variable("x")
    w = mx.sym.Variable("w")
    exe = mx.sym.sparse.dot(x, w).simple_bind(mx.cpu(), stype_dict={"x": "csr"},
                                              x=(4, 6), w=(6, 3))
    assert _stypes(exe.arg_arrays) == ["csr", "default"]
    assert _stypes(exe.grad_arrays) == ["default", "row_sparse"]


def test_symbol_functions_ignore_out():
    a, b = mx.sym.Variable("a"), mx.sym.Variable("b")
    s = mx.sym.sparse.elemwise_add(a, b, out=a)       # MXNet ignores ``out`` for symbols
    assert s.list_arguments() == ["a", "b"]


def test_sparse_arguments_give_sparse_outputs_in_checks():
    """check_symbolic_forward/backward bind the location's storage types and
    grad_stypes, as MXNet's do: relu of a row_sparse argument stays row_sparse."""
    x = mx.nd.array(np.array([[0, 1.], [0, 0], [2, -3]])).tostype("row_sparse")
    y = mx.sym.relu(mx.sym.Variable("data"))
    (out,) = mx.test_utils.check_symbolic_forward(y, [x], [np.maximum(x.asnumpy(), 0)])
    assert out.stype == "row_sparse"
    grads = mx.test_utils.check_symbolic_backward(
        y, [x], [np.ones((3, 2))], [(x.asnumpy() > 0).astype(np.float32)],
        grad_stypes={"data": "row_sparse"})
    assert grads["data"].stype == "row_sparse"
    exp = mx.sym.exp(mx.sym.Variable("data"))          # not zero-preserving: dense
    (out,) = mx.test_utils.check_symbolic_forward(exp, [x], [np.exp(x.asnumpy())])
    assert out.stype == "default"
