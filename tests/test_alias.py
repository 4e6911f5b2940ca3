"""``install_mxnet_alias`` makes ``import mxnet`` give gluonlite."""
import importlib
import subprocess
import sys

import gluonlite

from .fresh_interpreter import assert_runs_ok


def test_alias_in_a_fresh_interpreter():
    code = (
        "import gluonlite; gluonlite.install_mxnet_alias()\n"
        "import mxnet as mx\n"
        "from mxnet.ndarray.ndarray import NDArray\n"
        "from mxnet.base import MXNetError, numeric_types\n"
        "import mxnet.autograd as ag\n"
        "from mxnet import nd, autograd\n"
        "from mxnet.util import is_np_array\n"
        "assert mx.__version__ == '1.9.1', mx.__version__\n"
        "assert gluonlite.__version__ != '1.9.1'\n"
        "assert NDArray is gluonlite.nd.NDArray and MXNetError is gluonlite.MXNetError\n"
        "assert ag is gluonlite.autograd and not is_np_array()\n"
        "x = mx.nd.ones((2, 2))\n"
        "assert isinstance(x, NDArray) and x.sum().asscalar() == 4\n"
        "print('ok')\n"
    )
    assert_runs_ok(code)


def test_top_level_names():
    mx = gluonlite
    for name in ("nd", "ndarray", "autograd", "cpu", "gpu", "cpu_pinned", "Context", "context",
                 "random", "base", "util", "test_utils", "num_gpus", "current_context"):
        assert hasattr(mx, name), name
    assert importlib.import_module("gluonlite.ndarray.ndarray").NDArray is mx.nd.NDArray
    assert isinstance(1.5, mx.base.numeric_types) and mx.util.is_np_array() is False


def test_operator_namespaces_import_as_modules():
    # GluonCV does ``from mxnet.symbol.contrib import SyncBatchNorm``
    import importlib
    import gluonlite as mx
    for name in ("symbol.contrib", "ndarray.contrib", "symbol.linalg", "ndarray.linalg",
                 "ndarray.image", "symbol.op", "ndarray._internal"):
        module = importlib.import_module(f"gluonlite.{name}")
        assert module is getattr(getattr(mx, name.split(".")[0]), name.split(".")[1])
    from gluonlite.symbol.contrib import SyncBatchNorm  # noqa: F401


def test_names_mxnet_tests_import_from_ndarray_module():
    # MXNet 1.9.1's test_ndarray.py / test_gluon.py import these at load time
    from gluonlite.ndarray.ndarray import _STORAGE_TYPE_STR_TO_ID, py_slice
    assert py_slice is slice
    assert _STORAGE_TYPE_STR_TO_ID["default"] == 0 and _STORAGE_TYPE_STR_TO_ID["csr"] == 2


def test_alias_restores_numpy_builtin_aliases():
    # GluonCV's Faster R-CNN builds its anchors with ``dtype=np.float`` (NumPy < 1.24)
    code = (
        "import numpy as np, gluonlite\n"
        "gluonlite.install_mxnet_alias()\n"
        "assert np.float is float and np.int is int and np.object is object\n"
        "assert np.array([1, 2], dtype=np.float).dtype == np.float64\n"
        "print('ok')\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ok"
    off = subprocess.run([sys.executable, "-c",
                          "import numpy as np, gluonlite\n"
                          "before = 'float' in vars(np)\n"
                          "gluonlite.install_mxnet_alias(numpy_aliases=False)\n"
                          "print(before == ('float' in vars(np)))"],
                         capture_output=True, text=True)
    assert off.stdout.strip() == "True", off.stderr


def test_alias_keeps_what_gluonlite_gives_on_first_use_and_a_module_spec():
    # MXNet imports test_utils at start-up: client code (GluonNLP's tests, GluonCV's)
    # writes mx.test_utils.* after a bare import mxnet; gluonlite loads it on first use
    code = (
        "import sys, gluonlite; gluonlite.install_mxnet_alias()\n"
        "import mxnet as mx\n"
        "assert 'gluonlite.test_utils' not in sys.modules\n"
        "mx.test_utils.assert_almost_equal(mx.nd.ones((2,)), mx.nd.ones((2,)))\n"
        "assert mx.test_utils is gluonlite.test_utils\n"
        "from mxnet import test_utils\n"
        "assert test_utils is gluonlite.test_utils and 'test_utils' in dir(mx)\n"
        "import gluonlite.tools\n"  # a submodule imported after the alias was installed
        "assert mx.tools is gluonlite.tools and mx.__version__ == '1.9.1'\n"
        # what checks for an installed mxnet reads (it raised ValueError: __spec__ is None)
        "import importlib.util\n"
        "assert importlib.util.find_spec('mxnet').name == 'mxnet'\n"
        "print('ok')\n"
    )
    assert_runs_ok(code)
