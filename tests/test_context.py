"""Devices: Context, cpu/gpu, the default-context scope, GPU detection without a GPU."""
import pickle
import types

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import backend
from gluonlite.base import MXNetError


def test_context_basics():
    assert mx.cpu() == mx.cpu(0) == mx.Context("cpu", 0)
    assert mx.cpu(1) != mx.cpu(0)
    assert str(mx.gpu(1)) == "gpu(1)" and repr(mx.cpu()) == "cpu(0)"
    assert mx.gpu(2).device_type == "gpu" and mx.gpu(2).device_id == 2
    assert mx.cpu_pinned().device_type == "cpu_pinned"
    assert mx.Context(mx.gpu(3)) == mx.gpu(3)
    assert pickle.loads(pickle.dumps(mx.gpu(1))) == mx.gpu(1)
    assert mx.cpu().xp is np
    assert len({mx.cpu(), mx.cpu(0), mx.gpu(0)}) == 2


def test_unknown_device_type():
    with pytest.raises(MXNetError, match="unknown device type"):
        mx.Context("tpu")


def test_current_context_scope():
    assert mx.current_context() == mx.cpu()
    with mx.cpu(3):
        assert mx.current_context() == mx.cpu(3)
        assert mx.nd.zeros((2,)).context == mx.cpu(3)
        with mx.cpu(5):
            assert mx.current_context() == mx.cpu(5)
        assert mx.current_context() == mx.cpu(3)
    assert mx.current_context() == mx.cpu()


def test_context_module_paths():
    from gluonlite.context import Context, cpu, current_context, gpu, num_gpus  # noqa: F401
    assert mx.context.Context is mx.Context


@pytest.fixture
def fake_cupy_without_driver(monkeypatch):
    """A CuPy that imports but whose runtime fails, as on a machine without a driver."""
    def fail():
        raise RuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")
    fake = types.SimpleNamespace(cuda=types.SimpleNamespace(
        runtime=types.SimpleNamespace(getDeviceCount=fail)))
    monkeypatch.setattr(backend, "_cupy", fake)
    monkeypatch.setattr(backend, "_cupy_checked", True)
    monkeypatch.setattr(backend, "_gpu_count", None)
    yield
    backend._gpu_count = None


def test_gpu_detection_without_driver(fake_cupy_without_driver):
    assert mx.num_gpus() == 0
    with pytest.raises(MXNetError, match="no usable GPU"):
        mx.nd.zeros((2,), ctx=mx.gpu(0))


def test_gpu_detection_without_cupy(monkeypatch):
    monkeypatch.setattr(backend, "_cupy", None)
    monkeypatch.setattr(backend, "_cupy_checked", True)
    monkeypatch.setattr(backend, "_gpu_count", None)
    try:
        assert mx.num_gpus() == 0
        with pytest.raises(MXNetError, match=r"gpu\(1\)"):
            mx.gpu(1).xp
    finally:
        backend._gpu_count = None


def test_gpu_out_of_range(monkeypatch):
    monkeypatch.setattr(backend, "_gpu_count", 1)
    try:
        with pytest.raises(MXNetError, match="only 1 GPU"):
            _ = mx.gpu(4).xp
    finally:
        backend._gpu_count = None


@pytest.mark.gpu
def test_gpu_arrays_roundtrip():
    x = mx.nd.array([[1, 2], [3, 4]], ctx=mx.gpu(0))
    assert x.context == mx.gpu(0)
    np.testing.assert_array_equal(x.asnumpy(), [[1, 2], [3, 4]])
    y = x.as_in_context(mx.cpu())
    assert y.context == mx.cpu()
    np.testing.assert_array_equal((x * 2).asnumpy(), [[2, 4], [6, 8]])
