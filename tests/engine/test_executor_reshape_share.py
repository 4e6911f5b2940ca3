"""``Executor.reshape`` output sharing and the keywords ``simple_bind``/``reshape`` take
as shapes, as in MXNet 1.9.1 (its test_executor.py ``test_reshape`` and
test_operator.py ``test_take``; checked against MXNet in the reference environment)."""
import numpy as np

import gluonlite as mx


def _fc_exe():
    y = mx.sym.FullyConnected(mx.sym.Variable("x"), num_hidden=4)
    exe = y.simple_bind(mx.cpu(), x=(5, 4), grad_req="null")
    exe.arg_arrays[0][:] = 1
    exe.arg_arrays[1][:] = mx.nd.ones((4, 4))
    exe.arg_arrays[2][:] = 0
    return exe


def test_smaller_reshape_shares_output_memory():
    exe = _fc_exe()
    new_exe = exe.reshape(x=(3, 4))
    new_exe.forward(is_train=False)
    assert np.all(new_exe.outputs[0].asnumpy() == 4)
    # the new executor wrote into the start of the old one's output
    assert np.all(exe.outputs[0].asnumpy()[:3] == 4)
    exe.forward(is_train=False)
    assert np.all(exe.outputs[0].asnumpy() == 4)


def test_larger_reshape_allocates_new_arrays():
    exe = _fc_exe()
    new_exe = exe.reshape(allow_up_sizing=True, x=(6, 4))
    new_exe.arg_arrays[0][:] = 0
    assert np.all(exe.arg_arrays[0].asnumpy() == 1)       # data: not shared
    assert np.all(new_exe.arg_arrays[1].asnumpy() == 1)   # weight: shared
    new_exe.forward(is_train=False)
    assert new_exe.outputs[0].shape == (6, 4)


def test_non_tuple_keywords_are_not_shapes():
    a, idx = mx.sym.Variable("a"), mx.sym.Variable("indices")
    out = mx.sym.take(a=a, indices=mx.sym.BlockGrad(idx), axis=1, mode="clip")
    # MXNet's simple_bind takes only tuple values as shapes (test_take passes axis/mode)
    exe = out.simple_bind(mx.cpu(), a=(2, 3), indices=(4,), axis=1, mode="clip")
    assert exe.arg_dict["a"].shape == (2, 3)
    exe.arg_dict["a"][:] = mx.nd.array(np.arange(6).reshape(2, 3))
    exe.arg_dict["indices"][:] = mx.nd.array([0, 2, 5, -1])
    exe.forward(is_train=False)
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(),
                                  [[0, 2, 2, 0], [3, 5, 5, 3]])
    assert exe.reshape(a=(2, 3), indices=(2,), axis=1).outputs[0].shape == (2, 2)
