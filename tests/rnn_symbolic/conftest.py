"""The fixture of ``tests/fixtures/gen_symbolic_rnn.py`` (MXNet 1.9.1's numbers)."""
import json
import os

import numpy as np
import pytest

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "symbolic_rnn.npz")


@pytest.fixture(scope="session")
def rnn_fixture():
    """``(arrays, meta)``: the npz and its decoded ``__meta__``."""
    data = np.load(FIXTURE)
    return data, json.loads(str(data["__meta__"]))
