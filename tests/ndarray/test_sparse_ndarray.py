"""Sparse NDArrays (``mx.nd.sparse``): creation, storage casts, the sparse kernels, the
dense fallback of every other operator, autograd into sparse gradient buffers."""
import pickle

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError

sp = mx.nd.sparse

_RSP_DENSE = np.array([[0, 0], [1, 2], [0, 0], [3, 4], [0, 0]], dtype=np.float32)
_CSR_DENSE = np.array([[1, 0, 0, 2], [0, 0, 0, 0], [0, 3, 4, 0]], dtype=np.float32)


def _rsp():
    return sp.row_sparse_array(([[1, 2], [3, 4]], [1, 3]), shape=(5, 2))


def _csr():
    return sp.csr_matrix(([1, 2, 3, 4], [0, 3, 1, 2], [0, 2, 2, 4]), shape=(3, 4))


# -- creation ---------------------------------------------------------------------------


def test_row_sparse_array_from_components():
    r = _rsp()
    assert isinstance(r, sp.RowSparseNDArray) and r.stype == "row_sparse"
    assert r.shape == (5, 2) and r.dtype == np.float32 and r.ndim == 2 and r.size == 10
    np.testing.assert_array_equal(r.asnumpy(), _RSP_DENSE)
    np.testing.assert_array_equal(r.indices.asnumpy(), [1, 3])
    assert r.indices.dtype == np.int64
    np.testing.assert_array_equal(r.data.asnumpy(), [[1, 2], [3, 4]])


def test_row_sparse_array_infers_shape_and_keeps_rows_as_given():
    r = sp.row_sparse_array(([[1, 2], [3, 4]], [1, 3]))
    assert r.shape == (4, 2)
    np.testing.assert_array_equal(r.asnumpy(), _RSP_DENSE[:4])
    # as MXNet: unsorted or out-of-range rows are stored; check_format() reports them
    for rows in ([3, 1], [1, 7], [1, -2]):
        bad = sp.row_sparse_array(([[3, 4], [1, 2]], rows), shape=(4, 2))
        with pytest.raises(MXNetError, match="increasing"):
            bad.check_format()


def test_csr_matrix_from_components_coo_and_dense():
    c = _csr()
    assert isinstance(c, sp.CSRNDArray) and c.stype == "csr"
    np.testing.assert_array_equal(c.asnumpy(), _CSR_DENSE)
    np.testing.assert_array_equal(c.indptr.asnumpy(), [0, 2, 2, 4])
    coo = sp.csr_matrix(([1, 2, 3, 4], ([0, 0, 2, 2], [0, 3, 1, 2])), shape=(3, 4))
    np.testing.assert_array_equal(coo.asnumpy(), _CSR_DENSE)
    dense = sp.csr_matrix(_CSR_DENSE)
    np.testing.assert_array_equal(dense.indices.asnumpy(), [0, 3, 1, 2])


def test_dtype_follows_numpy_sources_and_defaults_to_float32():
    assert sp.csr_matrix(np.eye(2, dtype=np.int64)).dtype == np.int64
    assert sp.csr_matrix([[1, 0], [0, 1]]).dtype == np.float32
    assert sp.row_sparse_array((2, 3), dtype="float64").dtype == np.float64


def test_zeros_and_empty_hold_nothing():
    for stype in ("row_sparse", "csr"):
        for z in (sp.zeros(stype, (3, 2)), mx.nd.zeros((3, 2), stype=stype),
                  mx.nd.empty((3, 2), stype=stype), sp.empty(stype, (3, 2))):
            assert z.stype == stype and z.data.shape[0] == 0
            np.testing.assert_array_equal(z.asnumpy(), np.zeros((3, 2)))
            z.check_format()
    assert mx.nd.zeros((2,), stype="default").stype == "default"


def test_bad_creation_arguments_raise():
    with pytest.raises(ValueError):
        sp.zeros("dense", (2, 2))
    with pytest.raises(ValueError):
        sp.csr_matrix((2, 2), shape=(3, 2))
    with pytest.raises(ValueError):
        sp.row_sparse_array((2, 2), shape=(3, 2))
    with pytest.raises(ValueError):
        sp.csr_matrix(mx.nd.ones((2, 2)), shape=(3, 2))
    unordered = sp.csr_matrix(([1.0, 2.0], [1, 0], [0, 2]), shape=(1, 2))  # MXNet accepts
    np.testing.assert_array_equal(unordered.asnumpy(), [[2.0, 1.0]])
    with pytest.raises(MXNetError, match="increasing"):
        unordered.check_format()
    with pytest.raises(MXNetError):
        sp.retain(mx.nd.ones((2, 2)), invalid_arg="x")


def test_check_format_finds_bad_storage():
    c = _csr()
    c.handle.indptr[1] = 7
    with pytest.raises(MXNetError, match="indptr"):
        c.check_format()


# -- storage casts ------------------------------------------------------------------------


@pytest.mark.parametrize("stype", ["row_sparse", "csr"])
def test_tostype_round_trip(stype):
    dense = mx.nd.array(_CSR_DENSE)
    s = dense.tostype(stype)
    assert s.stype == stype
    np.testing.assert_array_equal(s.asnumpy(), _CSR_DENSE)
    back = s.tostype("default")
    assert back.stype == "default" and type(back) is mx.nd.NDArray
    np.testing.assert_array_equal(back.asnumpy(), _CSR_DENSE)
    other = "csr" if stype == "row_sparse" else "row_sparse"
    np.testing.assert_array_equal(s.tostype(other).asnumpy(), _CSR_DENSE)
    assert mx.nd.cast_storage(dense, stype=stype).stype == stype


def test_row_sparse_keeps_only_nonzero_rows():
    r = mx.nd.array(_RSP_DENSE).tostype("row_sparse")
    np.testing.assert_array_equal(r.indices.asnumpy(), [1, 3])


def test_copyto_and_setitem():
    r = _rsp()
    z = sp.zeros("row_sparse", (5, 2))
    r.copyto(z)
    np.testing.assert_array_equal(z.indices.asnumpy(), [1, 3])
    d = mx.nd.zeros((5, 2))
    r.copyto(d)
    np.testing.assert_array_equal(d.asnumpy(), _RSP_DENSE)
    z2 = sp.zeros("row_sparse", (5, 2))
    mx.nd.array(_RSP_DENSE).copyto(z2)
    assert z2.stype == "row_sparse"
    np.testing.assert_array_equal(z2.indices.asnumpy(), [1, 3])
    z2[:] = 3
    np.testing.assert_array_equal(z2.asnumpy(), np.full((5, 2), 3))
    z2[:] = mx.nd.array(_RSP_DENSE)
    np.testing.assert_array_equal(z2.indices.asnumpy(), [1, 3])
    with pytest.raises(MXNetError):
        z2[1] = 0
    moved = r.as_in_context(mx.cpu(1))
    assert moved.context == mx.cpu(1) and moved.stype == "row_sparse"
    copy = r.copy()
    copy[:] = 0
    np.testing.assert_array_equal(r.asnumpy(), _RSP_DENSE)   # a copy, not a view


def test_csr_row_slices():
    c = _csr()
    np.testing.assert_array_equal(c[1:3].asnumpy(), _CSR_DENSE[1:3])
    np.testing.assert_array_equal(c[2].asnumpy(), _CSR_DENSE[2:3])
    assert c[0:2].stype == "csr"
    with pytest.raises(MXNetError):
        c[::2]


def test_pickle_and_astype_keep_storage():
    for s in (_rsp(), _csr()):
        again = pickle.loads(pickle.dumps(s))
        assert again.stype == s.stype
        np.testing.assert_array_equal(again.asnumpy(), s.asnumpy())
        cast = s.astype("float64")
        assert cast.stype == s.stype and cast.dtype == np.float64


# -- sparse kernels and the dense fallback ---------------------------------------------------


def test_zero_preserving_math_stays_sparse():
    r = _rsp()
    for y, ref in ((r * 2, _RSP_DENSE * 2), (r / 2, _RSP_DENSE / 2), (-r, -_RSP_DENSE),
                   (mx.nd.sqrt(r), np.sqrt(_RSP_DENSE)), (mx.nd.abs(r), _RSP_DENSE),
                   (r == 1, (_RSP_DENSE == 1).astype(np.float32))):
        assert y.stype == "row_sparse"
        np.testing.assert_allclose(y.asnumpy(), ref, rtol=1e-6)
    c = _csr()
    assert (c * 3).stype == "csr"
    np.testing.assert_array_equal((c * 3).asnumpy(), _CSR_DENSE * 3)


def test_operators_without_zero_preservation_give_dense_results():
    r = _rsp()
    for y, ref in ((r + 1, _RSP_DENSE + 1), (r == 0, (_RSP_DENSE == 0).astype(np.float32)),
                   (mx.nd.exp(r), np.exp(_RSP_DENSE)), (mx.nd.sum(r), _RSP_DENSE.sum())):
        assert y.stype == "default"
        np.testing.assert_allclose(y.asnumpy().reshape(np.shape(ref)), ref, rtol=1e-6)


def test_sparse_add_sub_mul():
    a = _rsp()
    b = sp.row_sparse_array(([[10, 20]], [3]), shape=(5, 2))
    b2 = b.asnumpy()
    for y, ref in ((a + b, _RSP_DENSE + b2), (a - b, _RSP_DENSE - b2),
                   (a * b, _RSP_DENSE * b2), (sp.add(a, b), _RSP_DENSE + b2),
                   (mx.nd.elemwise_sub(a, b), _RSP_DENSE - b2)):
        assert y.stype == "row_sparse"
        np.testing.assert_array_equal(y.asnumpy(), ref)
    np.testing.assert_array_equal((a + b).indices.asnumpy(), [1, 3])
    np.testing.assert_array_equal((a * b).indices.asnumpy(), [3])
    dense = mx.nd.ones((5, 2)) * 2
    assert (a * dense).stype == "row_sparse"
    assert (a + dense).stype == "default"
    np.testing.assert_array_equal((a + dense).asnumpy(), _RSP_DENSE + 2)
    c = _csr()
    assert (c + c).stype == "csr"
    np.testing.assert_array_equal((c - c * 2).asnumpy(), -_CSR_DENSE)


def test_inplace_arithmetic_on_a_sparse_array_keeps_the_result():
    a = _rsp()
    a += _rsp()
    assert a.stype == "row_sparse"
    np.testing.assert_array_equal(a.asnumpy(), 2 * _RSP_DENSE)
    a *= 2
    np.testing.assert_array_equal(a.asnumpy(), 4 * _RSP_DENSE)


def test_add_n_of_row_sparse_is_the_union_of_rows():
    a = _rsp()
    b = sp.row_sparse_array(([[1, 1]], [0]), shape=(5, 2))
    s = mx.nd.add_n(a, b, a)
    assert s.stype == "row_sparse"
    np.testing.assert_array_equal(s.indices.asnumpy(), [0, 1, 3])
    np.testing.assert_array_equal(s.asnumpy(), 2 * _RSP_DENSE + b.asnumpy())


def test_maximum_minimum_hypot_of_two_sparse_arrays_stay_sparse():
    """MXNet 1.9.1: _maximum/_minimum/_hypot of row_sparse pairs give row_sparse, of csr pairs
    csr (values checked against its output); broadcast_maximum falls back to dense."""
    a = np.array([[0, 1.], [0, 0], [2, -3]], np.float32)
    b = np.array([[1, -1.], [0, 0], [0, 0]], np.float32)
    for stype in ("row_sparse", "csr"):
        x, y = mx.nd.array(a).tostype(stype), mx.nd.array(b).tostype(stype)
        hi, lo = mx.nd._internal._maximum(x, y), mx.nd._internal._minimum(x, y)
        assert hi.stype == lo.stype == stype
        np.testing.assert_array_equal(hi.asnumpy(), [[1, 1], [0, 0], [2, 0]])
        np.testing.assert_array_equal(lo.asnumpy(), [[0, -1], [0, 0], [0, -3]])
        h = mx.nd._internal._hypot(x, y)
        assert h.stype == stype
        np.testing.assert_allclose(h.asnumpy(), np.hypot(a, b), rtol=1e-6)
    rsp = mx.nd.array(a).tostype("row_sparse")
    assert mx.nd._internal._maximum(rsp, mx.nd.array(b)).stype == "default"


def test_scatter_operators_compute_stored_values_only():
    """Values and storage types as MXNet 1.9.1 gives them."""
    a = np.array([[0, 1.], [0, 0], [2, -3]], np.float32)
    b = np.array([[1, -1.], [0, 0], [4, 2]], np.float32)
    rsp, rhs = mx.nd.array(a).tostype("row_sparse"), mx.nd.array(b).tostype("row_sparse")
    for divisor in (rhs, mx.nd.array(b)):
        r = mx.nd._internal._scatter_elemwise_div(rsp, divisor)
        assert r.stype == "row_sparse"
        np.testing.assert_array_equal(r.indices.asnumpy(), [0, 2])
        np.testing.assert_allclose(r.asnumpy(), [[0, -1], [0, 0], [0.5, -1.5]])
    with np.errstate(divide="ignore", invalid="ignore"):
        r = mx.nd._internal._scatter_elemwise_div(mx.nd.array(a), rhs)
    assert r.stype == "default" and np.isnan(r.asnumpy()[1]).all()
    r = mx.nd._internal._scatter_plus_scalar(rsp, 5)
    assert r.stype == "row_sparse"
    np.testing.assert_array_equal(r.asnumpy(), [[5, 6], [0, 0], [7, 2]])
    csr = mx.nd.array(a).tostype("csr")
    np.testing.assert_array_equal(mx.nd._internal._scatter_plus_scalar(csr, 5).asnumpy(),
                                  [[0, 6], [0, 0], [7, 2]])
    r = mx.nd._internal._scatter_minus_scalar(csr, 5)
    assert r.stype == "csr"
    np.testing.assert_array_equal(r.asnumpy(), [[0, -4], [0, 0], [-3, -8]])
    np.testing.assert_array_equal(
        mx.nd._internal._scatter_plus_scalar(mx.nd.array(a), 5).asnumpy(), a + 5)


def test_zeros_like_of_sparse():
    z = mx.nd.zeros_like(_rsp())
    assert z.stype == "row_sparse" and z.data.shape[0] == 0


@pytest.mark.parametrize("transpose_b", [False, True])
def test_dot_csr_dense(transpose_b):
    rng = np.random.default_rng(0)
    rhs = rng.normal(size=(2, 4) if transpose_b else (4, 2)).astype(np.float32)
    y = sp.dot(_csr(), mx.nd.array(rhs), transpose_b=transpose_b)
    assert y.stype == "default"
    np.testing.assert_allclose(y.asnumpy(), _CSR_DENSE @ (rhs.T if transpose_b else rhs),
                               rtol=1e-5)
    rhs2 = rng.normal(size=(3, 2)).astype(np.float32)
    yt = mx.nd.dot(_csr(), mx.nd.array(rhs2), transpose_a=True)
    assert yt.stype == "row_sparse"
    np.testing.assert_allclose(yt.asnumpy(), _CSR_DENSE.T @ rhs2, rtol=1e-5)
    np.testing.assert_array_equal(yt.indices.asnumpy(), [0, 1, 2, 3])
    with pytest.raises(MXNetError, match="dot"):
        sp.dot(_csr(), mx.nd.ones((3, 2)))


def test_retain():
    r = _rsp()
    kept = sp.retain(r, mx.nd.array([2, 1, 2]))
    assert kept.stype == "row_sparse"
    # every requested row is stored (MXNet's kernel), zeros where r has none
    np.testing.assert_array_equal(kept.indices.asnumpy(), [1, 2])
    np.testing.assert_array_equal(kept.data.asnumpy(), [[1, 2], [0, 0]])
    np.testing.assert_array_equal(r.retain([3]).asnumpy()[3], [3, 4])
    with pytest.raises(MXNetError, match="indices"):
        sp.retain(r, mx.nd.array([7]))


def test_fallback_operator_writes_into_a_sparse_out():
    r = _rsp()
    out = sp.zeros("row_sparse", (5, 2))
    mx.nd.exp(r, out=out)
    assert out.stype == "row_sparse"
    np.testing.assert_allclose(out.asnumpy(), np.exp(_RSP_DENSE), rtol=1e-6)


def test_sparse_auxiliary_states_keep_their_updates():
    # nag_mom_update has no sparse kernel: the densified momentum state is written back
    w, g = mx.nd.ones((3, 2)), mx.nd.ones((3, 2))
    mom = sp.zeros("row_sparse", (3, 2))
    mx.nd.nag_mom_update(w, g, mom, out=w, lr=0.1, momentum=0.9)
    assert mom.stype == "row_sparse"
    np.testing.assert_allclose(mom.asnumpy(), np.full((3, 2), -0.1), rtol=1e-6)
    np.testing.assert_array_equal(mom.indices.asnumpy(), [0, 1, 2])


# -- autograd ---------------------------------------------------------------------------------


@pytest.mark.parametrize("grad_req", ["write", "add"])
def test_gradients_land_in_a_row_sparse_buffer(grad_req):
    w = mx.nd.array(_RSP_DENSE).tostype("row_sparse")
    w.attach_grad(grad_req=grad_req, stype="row_sparse")
    for _ in range(2):
        with mx.autograd.record():
            y = mx.nd.take(w, mx.nd.array([1, 1, 4])) * 3
        y.backward()
    assert w.grad.stype == "row_sparse"
    expected = np.zeros((5, 2), dtype=np.float32)
    expected[1], expected[4] = 6, 3
    if grad_req == "add":
        expected *= 2
    np.testing.assert_array_equal(w.grad.asnumpy(), expected)
    np.testing.assert_array_equal(w.grad.indices.asnumpy(), [1, 4])


def test_recorded_sparse_kernel_operators_take_the_dense_path():
    w = _rsp()
    w.attach_grad()
    with mx.autograd.record():
        y = (w * 2).sum()
    y.backward()
    np.testing.assert_array_equal(w.grad.asnumpy(), np.full((5, 2), 2))


def test_reset_arrays_zeroes_dense_and_sparse_arrays():
    dense, rsp = mx.nd.ones((2, 3)), _rsp()
    assert mx.nd.reset_arrays(dense, rsp, num_arrays=2) == []
    np.testing.assert_array_equal(dense.asnumpy(), np.zeros((2, 3)))
    assert rsp.stype == "row_sparse" and rsp.data.shape[0] == 0
    with pytest.raises(MXNetError, match="reset_arrays"):
        mx.nd.reset_arrays(dense, num_arrays=2)


def test_getnnz_counts_stored_entries():
    c = sp.csr_matrix(([1.0, 0.0, 2.0], [0, 1, 2], [0, 2, 3]), shape=(2, 3))
    np.testing.assert_array_equal(mx.nd.contrib.getnnz(c).asnumpy(), [3])  # explicit 0 too
    np.testing.assert_array_equal(mx.nd.contrib.getnnz(c, axis=1).asnumpy(), [2, 1])
    with pytest.raises(MXNetError, match="axis = 0"):
        mx.nd.contrib.getnnz(c, axis=0)


@pytest.mark.parametrize("mode", ["clip", "wrap"])
def test_take_rows_of_csr_stays_csr(mode):
    c = _csr()
    idx = np.array([2, 7, -1, 0])
    t = mx.nd.take(c, mx.nd.array(idx), mode=mode)
    assert t.stype == "csr"
    np.testing.assert_array_equal(t.asnumpy(), np.take(_CSR_DENSE, idx, axis=0, mode=mode))


def test_sparse_sources_of_nd_array_stay_sparse():
    spsp = pytest.importorskip("scipy.sparse")  # SciPy matrices as input, as in MXNet
    assert mx.nd.array(_csr()).stype == "csr"
    # a non-canonical SciPy matrix is summed and sorted, as MXNet does
    m = spsp.csr_matrix((np.array([1.0, 2, 3, 1]), np.array([2, 0, 2, 1]),
                         np.array([0, 3, 4])), shape=(2, 3))
    c = mx.nd.array(m)
    np.testing.assert_array_equal(c.indices.asnumpy(), [0, 2, 1])
    np.testing.assert_array_equal(c.data.asnumpy(), [2, 4, 1])
    with pytest.raises(ValueError):
        mx.nd.array([1, 2, 3]).tostype("csr")


def test_fully_connected_takes_a_column_bias_as_mxnet():
    b = mx.nd.ones((8, 1))
    b.attach_grad()
    with mx.autograd.record():
        y = mx.nd.FullyConnected(mx.nd.ones((5, 10)), mx.nd.ones((8, 10)), b, num_hidden=8)
    y.backward()
    np.testing.assert_array_equal(y.asnumpy(), np.full((5, 8), 11))
    assert b.grad.shape == (8, 1)


def test_sparse_namespaces_list_the_operators():
    assert mx.sym.sparse.dot is mx.sym.dot and mx.sym.sparse.Embedding is mx.sym.Embedding
    assert callable(mx.sym.sparse.retain) and callable(sp.adagrad_update)
    assert (sp.elemwise_add(_rsp(), _rsp()).asnumpy() == 2 * _RSP_DENSE).all()
