"""Samples for the sparse operators (``sparse_ops.py``), run on dense inputs: the
harness checks the dense path; ``tests/test_sparse_ndarray.py`` checks the kernels."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(11)
_x = _rng.uniform(-2, 2, size=(4, 3))
_x[1] = 0.0                          # a zero row: dropped by row_sparse storage
_x3 = _rng.uniform(-2, 2, size=(5, 2, 3))
_ints = np.array([[0, 4], [0, 0], [7, 0]], dtype=np.int32)


def _retain_ref(data, indices):
    keep = np.zeros(data.shape[0], dtype=bool)
    keep[indices.astype(np.int64)] = True
    return data * keep.reshape((-1,) + (1,) * (data.ndim - 1))


_idx = np.array([[0, 3], [2, 2]], dtype=np.float32)
_w = _rng.uniform(-1, 1, size=(4, 3))

_den = _rng.uniform(0.5, 2, size=(4, 3)) * np.sign(_rng.uniform(-1, 1, size=(4, 3)))

SAMPLES = {
    "_scatter_elemwise_div": [
        Sample([_x, _den], ref=lambda a, b: a / b),
        Sample([_x, _den], ref=lambda a, b: a / b, grad=[1]),
    ],
    "_scatter_plus_scalar": [Sample([_x], {"scalar": 1.5}, ref=lambda x, scalar: x + scalar)],
    "_scatter_minus_scalar": [Sample([_x3], {"scalar": 0.5}, ref=lambda x, scalar: x - scalar)],
    "_contrib_getnnz": [
        Sample([_x], ref=lambda x: np.array([np.count_nonzero(x)])),
        Sample([_x], {"axis": 1}, ref=lambda x, axis: np.count_nonzero(x, axis=1)),
    ],
    "_square_sum": [
        Sample([_x], {"axis": 1, "keepdims": True},
               ref=lambda x, axis, keepdims: (x * x).sum(axis=axis, keepdims=keepdims)),
        Sample([_x3], {"axis": (0, 2)}, ref=lambda x, axis: (x * x).sum(axis=axis)),
        Sample([_x3], {"axis": 1, "exclude": True},
               ref=lambda x, axis, exclude: (x * x).sum(axis=(0, 2))),
        Sample([_x], ref=lambda x: np.array([(x * x).sum()])),
        Sample([_x.astype(np.float32)], {"axis": -1},
               ref=lambda x, axis: (x * x).sum(axis=axis), rtol=1e-5, grad=False),
    ],
    "_contrib_SparseEmbedding": [
        Sample([_idx, _w], {"input_dim": 4, "output_dim": 3}, ref=lambda d, w, **kw:
               w[d.astype(np.int64)], grad=[1]),
    ],
    "cast_storage": [
        Sample([_x], {"stype": "default"}, ref=lambda x, stype: x),
        Sample([_x], {"stype": "row_sparse"}, ref=lambda x, stype: x),
        Sample([_x], {"stype": "csr"}, ref=lambda x, stype: x),
        Sample([_x3], {"stype": "row_sparse"}, ref=lambda x, stype: x),
        Sample([_ints], {"stype": "csr"}, ref=lambda x, stype: x),
    ],
    "_sparse_retain": [
        Sample([_x, np.array([0.0, 2.0])], ref=_retain_ref, grad=[0]),
        Sample([_x3, np.array([4.0, 1.0, 3.0])], ref=_retain_ref, grad=[0]),
    ],
}
