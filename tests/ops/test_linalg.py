"""Focused tests of the ``_linalg_*`` operators: namespace, dtypes, shape
inference and error messages (MXNet parity is in ``test_linalg_mxnet.py``)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.ops.registry import get_op


def test_namespace_and_float32():
    a = mx.nd.array(np.eye(3) * 4, dtype=np.float32)
    for name in ("gemm", "gemm2", "potrf", "potri", "trsm", "trmm", "syrk", "sumlogdiag",
                 "inverse", "det", "slogdet", "extractdiag", "makediag", "extracttrian",
                 "maketrian", "gelqf", "syevd"):
        assert hasattr(mx.nd.linalg, name), name
    low = mx.nd.linalg.potrf(a)
    assert low.dtype == np.float32
    np.testing.assert_allclose(low.asnumpy(), np.eye(3) * 2)
    assert mx.nd.linalg.det(a).dtype == np.float32


def test_gemm_shape_inference():
    op = get_op("_linalg_gemm")
    attrs = op.parse_attrs(dict(transpose_a=True))
    ins, outs = op.infer_shape(attrs, [(2, 4, 3), (2, 4, 5), None])
    assert outs == [(2, 3, 5)] and ins[2] == (2, 3, 5)
    op2 = get_op("_linalg_gemm2")
    assert op2.infer_shape(op2.parse_attrs(dict(axis=0)), [(3, 2, 4), (4, 2, 5)])[1] == \
        [(3, 2, 5)]


@pytest.mark.parametrize("call,op,message", [
    (lambda: mx.nd.linalg.gemm2(mx.nd.ones((2, 3)), mx.nd.ones((2, 3))), "_linalg_gemm2",
     "do not agree"),
    (lambda: mx.nd.linalg.potrf(mx.nd.array([[1.0, 2.0], [2.0, 1.0]])), "_linalg_potrf",
     "not positive definite"),
    (lambda: mx.nd.linalg.inverse(mx.nd.ones((2, 3))), "_linalg_inverse", "square"),
    (lambda: mx.nd.linalg.det(mx.nd.ones((3,))), "_linalg_det", "at least 2"),
    (lambda: mx.nd.linalg.maketrian(mx.nd.ones((4,))), "_linalg_maketrian", "triangular"),
    (lambda: mx.nd.linalg.gelqf(mx.nd.ones((4, 3))), "_linalg_gelqf", "columns"),
    (lambda: mx.nd.linalg.syrk(mx.nd.ones((2, 2), dtype=np.int32)), "_linalg_syrk",
     "float32 and float64"),
])
def test_errors_name_operator(call, op, message):
    with pytest.raises(MXNetError, match=message) as err:
        call()
    assert op in str(err.value)
