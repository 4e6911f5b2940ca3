"""Shared pytest configuration: the ``gpu`` marker skips where no GPU is usable."""
import numpy as np
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


@pytest.fixture(autouse=True)
def _seeded_random_streams():
    """Every test starts from the same random state, whatever ran before it, so that a
    statistical check cannot pass in one order and fail in another."""
    import gluonlite as mx
    mx.random.seed(20261123)
    np.random.seed(20261123)
