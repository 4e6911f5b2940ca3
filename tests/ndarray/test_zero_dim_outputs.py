"""``OpDef.zero_dim_outputs``: ``nd.contrib.allclose`` returns a 0-d array outside NumPy
shape semantics, as MXNet 1.9.1 (its unit test formats it with ``'{:d}'``)."""
import numpy as np

import gluonlite as mx


def test_allclose_imperative_is_0d():
    a = mx.nd.array(np.ones((2, 3)))
    r = mx.nd.contrib.allclose(a, a)
    assert r.shape == ()
    assert "{0:d}".format(r.asnumpy() == 1) == "1"
    assert mx.nd.sum(a).shape == (1,)  # other 0-d results stay (1,)
