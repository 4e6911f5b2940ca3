"""MXNet's documented signatures of the built-in ``_np_*`` operators
(``gluonlite._numpy_op_doc``, recorded by ``tests/fixtures/gen_numpy_op_doc.py``), and
the positional order they imply: ``keepdims`` comes before ``out`` in ``mx.np.max``,
``sum``, ... while the array methods keep NumPy's ``(axis, [dtype,] out, keepdims)``."""
import inspect
import json
import os

import numpy as onp

import gluonlite as mx
from gluonlite import _numpy_op_doc
from gluonlite.numpy_op_signature import _get_builtin_op
from gluonlite.ops.registry import op_names

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "numpy_op_doc.json")) as f:
    EXPECTED = json.load(f)


def test_documented_signatures_are_mxnets():
    for name, sig in EXPECTED.items():
        doc_fn = getattr(_numpy_op_doc, name)
        assert str(inspect.signature(doc_fn)) == sig, name
        assert str(_get_builtin_op(name).__signature__) == sig, name


def test_every_builtin_np_operator_is_documented():
    """MXNet's test_np_builtin_op_signature: each registered ``_np_*`` operator."""
    names = [n for n in op_names() if n.startswith("_np_")]
    assert names and all(n in EXPECTED for n in names), sorted(set(names) - set(EXPECTED))


def test_positional_keepdims_and_methods():
    x = mx.np.array([[1.0, 2.0], [3.0, 4.0]])
    assert mx.np.max(x, 1, True).shape == (2, 1)
    assert mx.np.all(x, 0, True).shape == (1, 2)
    assert mx.np.sum(x, 0, None, True).shape == (1, 2)
    assert mx.np.prod(x, 0, None, True, 2.0).asnumpy().tolist() == [[6.0, 16.0]]
    assert x.max(1, None, True).shape == (2, 1)            # (axis, out, keepdims)
    assert x.sum(0, None, None, True).shape == (1, 2)      # (axis, dtype, out, keepdims)
    out = mx.np.zeros((2,))
    assert mx.np.sum(x, axis=1, out=out) is out
    onp.testing.assert_allclose(out.asnumpy(), [3.0, 7.0])
    assert mx.np.copy(x, out=mx.np.zeros((2, 2))).asnumpy().tolist() == x.asnumpy().tolist()
    assert mx.np.squeeze(mx.np.ones((1, 3)), out=mx.np.zeros((3,))).shape == (3,)
    assert mx.np.reshape(x, (4,), out=mx.np.zeros((4,))).shape == (4,)


def test_doc_functions_run_the_operators():
    x = mx.np.array([[1.0, 2.0], [3.0, 4.0]])
    assert float(_numpy_op_doc._np_sum(x)) == 10.0
    assert _numpy_op_doc._np_amax(x, axis=0).asnumpy().tolist() == [3.0, 4.0]


def test_numpy_functions_on_np_arrays_keep_numpys_positional_order():
    """``numpy.max(x, 0, None, True)`` on an ``mx.np`` array dispatches to ``mx.np.max``
    with NumPy's meaning of the positions (MXNet 1.9.1 itself mixes them up here)."""
    x = mx.np.array([[1.0, 2.0], [3.0, 4.0]])
    assert onp.max(x, 0, None, True).shape == (1, 2)
    assert onp.sum(x, 0, None, None, True).shape == (1, 2)
    assert onp.all(x, 1, None, True).shape == (2, 1)
    assert isinstance(onp.concatenate([x, x], 0), mx.np.ndarray)
