"""MXNet 1.9's importable module paths under ``install_mxnet_alias()`` and the small
modules behind them: ``mx.log``, ``mx.libinfo``, ``mx.error``, ``mx.contrib.autograd``,
``mx.contrib.io``, ``mx.contrib.ndarray``/``symbol`` and the ``gen_*`` op modules."""
import importlib
import logging

import numpy as np
import pytest

import gluonlite as mx

# module paths MXNet 1.9.1's package tree makes importable that user code imports
PATHS = ["mxnet.log", "mxnet.libinfo", "mxnet.error", "mxnet.profiler", "mxnet.contrib.autograd",
         "mxnet.contrib.io", "mxnet.contrib.ndarray", "mxnet.contrib.symbol",
         "mxnet.ndarray.gen_op", "mxnet.ndarray.gen_contrib", "mxnet.ndarray.gen__internal",
         "mxnet.ndarray.gen_linalg", "mxnet.ndarray.gen_image", "mxnet.ndarray.gen_random",
         "mxnet.ndarray.gen_sparse", "mxnet.symbol.gen_op", "mxnet.symbol.gen_contrib",
         "mxnet.symbol.gen__internal", "mxnet.symbol.gen_linalg", "mxnet.symbol.gen_image",
         "mxnet.symbol.gen_random", "mxnet.symbol.gen_sparse", "mxnet.ndarray.sparse",
         "mxnet.misc", "mxnet.kvstore.base",
         # MXNet's NumPy interface
         "mxnet.numpy", "mxnet.numpy.multiarray", "mxnet.numpy.linalg", "mxnet.numpy.random",
         "mxnet.numpy.fallback", "mxnet.numpy.fallback_linalg", "mxnet.numpy.function_base",
         "mxnet.numpy.io", "mxnet.numpy.stride_tricks", "mxnet.numpy.utils",
         "mxnet.numpy.arrayprint", "mxnet.numpy._op", "mxnet.numpy._register",
         "mxnet.numpy_extension", "mxnet.numpy_extension._op", "mxnet.numpy_extension.image",
         "mxnet.numpy_extension.random", "mxnet.numpy_extension.utils",
         "mxnet.numpy_extension._register", "mxnet.ndarray.numpy", "mxnet.ndarray.numpy._op",
         "mxnet.ndarray.numpy.linalg", "mxnet.ndarray.numpy.random",
         "mxnet.ndarray.numpy._internal", "mxnet.ndarray.numpy._api_internal",
         "mxnet.ndarray.numpy._register", "mxnet.ndarray.numpy_extension",
         "mxnet.ndarray.numpy_extension._op", "mxnet.ndarray.numpy_extension.image",
         "mxnet.ndarray.numpy_extension.random", "mxnet.ndarray.numpy_extension._register",
         "mxnet.symbol.numpy", "mxnet.symbol.numpy._symbol", "mxnet.symbol.numpy._op",
         "mxnet.symbol.numpy.linalg", "mxnet.symbol.numpy.random",
         "mxnet.symbol.numpy._internal", "mxnet.symbol.numpy._register",
         "mxnet.symbol.numpy_extension", "mxnet.symbol.numpy_extension._op",
         "mxnet.symbol.numpy_extension.image", "mxnet.symbol.numpy_extension.random",
         "mxnet.symbol.numpy_extension._register"]


@pytest.mark.parametrize("path", PATHS)
def test_module_path_imports_under_the_alias(path):
    mx.install_mxnet_alias()
    module = importlib.import_module(path)
    assert module is not None


def test_generated_op_modules_hold_the_operators():
    mx.install_mxnet_alias()
    from mxnet.ndarray.gen_op import FullyConnected  # noqa: F401 - the import is the test
    from mxnet.ndarray.gen_contrib import interleaved_matmul_selfatt_qk  # noqa: F401
    from mxnet.symbol.gen_linalg import gemm2  # noqa: F401
    import mxnet.contrib.ndarray as cnd
    assert cnd.index_copy is mx.nd.contrib.index_copy
    assert mx.contrib.nd.box_nms is mx.nd.contrib.box_nms
    assert mx.contrib.sym.box_nms is mx.sym.contrib.box_nms


def test_log_format_and_file(tmp_path):
    path = tmp_path / "log.txt"
    logger = mx.log.get_logger("gluonlite_test_log", filename=str(path), filemode="w",
                               level=mx.log.INFO)
    logger.info("hello %d", 3)
    logger.debug("hidden")
    for h in logger.handlers:
        h.flush()
    text = path.read_text()
    assert "hello 3" in text and "hidden" not in text
    assert text.startswith("\x1b[32mI")
    assert mx.log.get_logger("gluonlite_test_log", level=logging.DEBUG) is logger
    assert len(logger.handlers) == 1
    with pytest.warns(DeprecationWarning):
        mx.log.getLogger("gluonlite_test_log")


def test_libinfo():
    assert mx.libinfo.__version__ == "1.9.1"
    with pytest.raises(RuntimeError, match="native"):
        mx.libinfo.find_lib_path()


def test_error_registry():
    @mx.error.register
    class MyError(mx.error.MXNetError):
        pass

    assert mx.error.error_class("MyError") is MyError
    assert mx.error.error_class("ValueError") is ValueError
    assert mx.error.error_class("Unknown") is mx.base.MXNetError
    with pytest.raises(mx.base.MXNetError, match="internal error"):
        raise mx.error.InternalError("an internal error")


def test_contrib_autograd_grad_and_loss():
    from gluonlite.contrib import autograd as cag

    def f(x, y):
        return x * x + 3 * y

    x, y = mx.nd.array([1.0, 2.0]), mx.nd.array([5.0, 6.0])
    grads, loss = cag.grad_and_loss(f)(x, y)
    np.testing.assert_allclose(grads[0].asnumpy(), [2, 4])
    np.testing.assert_allclose(grads[1].asnumpy(), [3, 3])
    np.testing.assert_allclose(loss.asnumpy(), [16, 22])
    only_x = cag.grad(f, argnum=0)(x, y)
    np.testing.assert_allclose(only_x[0].asnumpy(), [2, 4])
    assert not mx.autograd.is_recording() and not mx.autograd.is_training()
    with cag.train_section():
        assert mx.autograd.is_recording() and mx.autograd.is_training()
        with cag.test_section():
            assert not mx.autograd.is_recording()
        assert mx.autograd.is_recording()


def test_dataloader_iter_pads_the_last_batch():
    from gluonlite.contrib.io import DataLoaderIter
    data = np.arange(10, dtype=np.float32).reshape(5, 2)
    label = np.arange(5, dtype=np.float32)
    loader = mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(data, label), batch_size=2)
    it = DataLoaderIter(loader)
    assert it.provide_data[0].shape == (2, 2) and it.provide_label[0].name == "softmax_label"
    batches = list(it)
    assert len(batches) == 3 and batches[-1].pad == 1
    np.testing.assert_array_equal(batches[-1].data[0].asnumpy(), [[8, 9], [0, 0]])
    it.reset()
    assert len(list(it)) == 3


def test_np_semantics_decorators_set_and_restore_the_modes():
    @mx.util.use_np_shape
    def inside():
        return mx.util.is_np_shape(), mx.util.is_np_array()

    assert inside() == (True, False)
    assert not mx.util.is_np_shape()
    with mx.util.np_array(True):
        assert mx.util.is_np_array()
    assert not mx.util.is_np_array()
    assert mx.base._as_list(3) == [3] and mx.base._as_list((1, 2)) == (1, 2)


def test_misc_factor_scheduler_as_mxnet():
    from gluonlite import misc
    sched = misc.FactorScheduler(step=2, factor=0.5)
    sched.base_lr = 0.1
    # MXNet 1.9.1: base_lr * factor ** int(iteration / step)
    assert [sched(i) for i in range(6)] == [0.1, 0.1, 0.05, 0.05, 0.025, 0.025]
    with pytest.raises(ValueError, match="step"):
        misc.FactorScheduler(0)
    with pytest.raises(ValueError, match="Factor"):
        misc.FactorScheduler(2, factor=1.0)
    with pytest.raises(NotImplementedError):
        misc.LearningRateScheduler()(0)


def test_kvstore_base_holds_the_registry_and_create():
    mx.install_mxnet_alias()
    import mxnet.kvstore.base as base

    @base.KVStoreBase.register
    class MyStore(base.KVStoreBase):
        pass

    assert isinstance(base.create("mystore"), MyStore)
    assert isinstance(base.create("teststore"), base.TestStore)
    assert isinstance(base.create("device"), mx.kv.KVStore)
    assert mx.kv.KVStoreBase is base.KVStoreBase
    del base.KVStoreBase.kv_registry["mystore"]


def test_test_utils_loads_on_first_use():
    """``import gluonlite`` leaves ``mx.test_utils`` (and the scipy.stats it imports, as
    MXNet's does) until first used; attribute access and ``import`` both load it."""
    import os
    import subprocess
    import sys
    script = ("import sys, gluonlite as mx\n"
              "assert 'gluonlite.test_utils' not in sys.modules\n"
              "assert 'scipy' not in sys.modules, 'scipy imported by import gluonlite'\n"
              "assert mx.test_utils.default_context() == mx.cpu()\n"
              "from gluonlite.test_utils import assert_almost_equal\n"
              "assert 'gluonlite.test_utils' in sys.modules\n")
    root = os.path.dirname(os.path.dirname(mx.__file__))
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=root))
    assert done.returncode == 0, done.stderr


def test_operator_star_import_and_handles_as_mxnet_callbacks_use_them():
    # MXNet's test_operator: ``from mxnet.operator import *`` gives ctypes and
    # NDArrayHandle, and a monitor callback turns what it receives into an NDArray
    namespace = {}
    exec("from gluonlite.operator import *", namespace)
    ctypes_module, handle_type = namespace["ctypes"], namespace["NDArrayHandle"]
    seen = {}

    def callback(name, arr):
        array = mx.nd.NDArray(ctypes_module.cast(arr, handle_type), writable=False)
        seen[mx.base.py_str(name)] = float(mx.nd.min(array).asscalar())

    data = mx.sym.var("data")
    exe = mx.sym.relu(data - 1, name="act").simple_bind(mx.cpu(), data=(2, 2))
    exe.set_monitor_callback(callback)
    exe.arg_dict["data"][:] = 3
    exe.forward()
    assert seen["act_output"] == 2.0
