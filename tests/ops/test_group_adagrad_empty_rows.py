"""``_contrib_group_adagrad_update`` with a row_sparse gradient that holds no rows."""
import numpy as np

import gluonlite as mx


def test_row_sparse_gradient_without_rows_changes_nothing():
    w = mx.nd.ones((3, 4)).tostype("row_sparse")
    g = mx.nd.zeros((3, 4), stype="row_sparse")
    history = mx.nd.zeros((3, 1), stype="row_sparse")
    opt = mx.optimizer.contrib.GroupAdaGrad(learning_rate=0.1, wd=0.0)
    opt.update(0, w, g, history)
    np.testing.assert_array_equal(w.asnumpy(), np.ones((3, 4), np.float32))
    np.testing.assert_array_equal(history.asnumpy(), np.zeros((3, 1), np.float32))


def test_rows_update_with_their_mean_square():
    w = mx.nd.ones((3, 4))
    g = mx.nd.array(np.arange(12, dtype=np.float32).reshape(3, 4)).tostype("row_sparse")
    history = mx.nd.zeros((3, 1))
    mx.optimizer.contrib.GroupAdaGrad(learning_rate=0.1, wd=0.0, eps=1e-5).update(
        0, w, g, history)
    gn = np.arange(12, dtype=np.float64).reshape(3, 4)
    hist = (gn * gn).mean(axis=1, keepdims=True)
    np.testing.assert_allclose(history.asnumpy(), hist, rtol=1e-6)
    np.testing.assert_allclose(w.asnumpy(), 1 - 0.1 * gn / np.sqrt(hist + 1e-5), rtol=1e-5)
