"""Shared pytest configuration: the ``gpu`` marker skips where no GPU is usable, the
``pillow`` marker where Pillow (the ``image`` extra) is not installed."""
import importlib.util

import numpy as np
import pytest


def pytest_addoption(parser):
    parser.addoption("--long", action="store_true", default=False,
                     help="long runs of the bounded tests (the loader fuzz: 100,000 cases)")


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a usable CUDA GPU with CuPy")
    config.addinivalue_line("markers", "pillow: decodes or encodes images (needs Pillow)")


def pytest_collection_modifyitems(config, items):
    import gluonlite as mx
    missing = []
    if mx.num_gpus() == 0:
        missing.append(("gpu", "no usable GPU (CuPy, driver or device missing)"))
    if importlib.util.find_spec("PIL") is None:
        missing.append(("pillow", "Pillow is not installed (pip install gluonlite[image])"))
    for marker, reason in missing:
        skip = pytest.mark.skip(reason=reason)
        for item in items:
            if marker in item.keywords:
                item.add_marker(skip)


@pytest.fixture(autouse=True)
def _seeded_random_streams():
    """Every test starts from the same random state, whatever ran before it, so that a
    statistical check cannot pass in one order and fail in another."""
    import gluonlite as mx
    mx.random.seed(20261123)
    np.random.seed(20261123)
