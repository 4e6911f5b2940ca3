"""``mx.util.use_np`` on a Gluon block class (MXNet's ``test_numpy_gluon`` style): every
method, inherited ones included, runs with NumPy semantics, so the block's parameters
and outputs are ``mx.np`` arrays, and the mode is off again outside its calls."""
import numpy as onp

import gluonlite as mx
from gluonlite import gluon


@mx.util.use_np
class _Block(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        with self.name_scope():
            self.w = self.params.get("w", shape=(2, 3))

    def hybrid_forward(self, F, x, w):
        return x * w, x + 1


def test_use_np_block_gives_np_arrays_imperative_and_hybridized():
    block = _Block()
    block.initialize()
    x = mx.nd.ones((2, 3)).as_np_ndarray()
    for hybridize in (False, True):
        if hybridize:
            block.hybridize()
        prod, plus = block(x)
        assert isinstance(prod, mx.np.ndarray) and isinstance(plus, mx.np.ndarray)
        onp.testing.assert_allclose(prod.asnumpy(), block.w.data().asnumpy())
    assert isinstance(block.w.data(), mx.np.ndarray)
    assert not mx.util.is_np_array() and not mx.util.is_np_shape()
