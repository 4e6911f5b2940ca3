"""The interleaved attention products and the contrib index operators against MXNet 1.9.1
(``tests/fixtures/gen_contrib_attention.py``): outputs and gradients, imperative and
hybridized."""
import os

import numpy as np
import pytest

import gluonlite as mx

_FIX = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                            "contrib_attention.npz"))
_H = 4
CASES = [("selfatt_qk", "interleaved_matmul_selfatt_qk", {"heads": _H}),
         ("selfatt_valatt", "interleaved_matmul_selfatt_valatt", {"heads": _H}),
         ("encdec_qk", "interleaved_matmul_encdec_qk", {"heads": _H}),
         ("encdec_valatt", "interleaved_matmul_encdec_valatt", {"heads": _H}),
         ("index_copy", "index_copy", {}),
         ("index_array", "index_array", {"axes": (2, 0)}),
         ("boolean_mask", "boolean_mask", {})]


def _inputs(key):
    n = sum(1 for k in _FIX.files if k.startswith(f"{key}/in"))
    return [_FIX[f"{key}/in{i}"] for i in range(n)]


class _Net(mx.gluon.HybridBlock):
    def __init__(self, name, attrs):
        super().__init__()
        self._op, self._attrs = name, attrs

    def hybrid_forward(self, F, *xs):
        return getattr(F.contrib, self._op)(*xs, **self._attrs)


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("key,name,attrs", CASES, ids=[c[0] for c in CASES])
def test_matches_mxnet(key, name, attrs, hybridize):
    arrays = [mx.nd.array(a, dtype=a.dtype) for a in _inputs(key)]
    net = _Net(name, attrs)
    if hybridize:
        net.hybridize()
    differentiable = name != "index_array"
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        y = net(*arrays)
    np.testing.assert_allclose(y.asnumpy(), _FIX[f"{key}/out"], rtol=1e-5, atol=1e-6)
    if not differentiable:
        assert y.dtype == np.int64
        return
    y.backward(mx.nd.array(_FIX[f"{key}/head"]))
    for i, a in enumerate(arrays):
        np.testing.assert_allclose(a.grad.asnumpy(), _FIX[f"{key}/grad{i}"], rtol=1e-5,
                                   atol=1e-5, err_msg=f"{key} gradient {i}")


def test_shape_errors_name_the_operator():
    with pytest.raises(mx.base.MXNetError, match="interleaved_matmul_selfatt_qk"):
        mx.nd.contrib.interleaved_matmul_selfatt_qk(mx.nd.ones((2, 2, 7)), heads=2)
    with pytest.raises(mx.base.MXNetError, match="boolean_mask"):
        mx.nd.contrib.boolean_mask(mx.nd.ones((3, 2)), mx.nd.ones((2,)))
