"""Shared pytest configuration: the ``gpu`` marker skips where no GPU is usable."""
import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a usable CUDA GPU with CuPy")


def pytest_collection_modifyitems(config, items):
    import gluonlite as mx
    if mx.num_gpus() > 0:
        return
    skip = pytest.mark.skip(reason="no usable GPU (CuPy, driver or device missing)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
