"""tile's reps as MXNet 1.9.1 takes them (its test_operator test_tile)."""
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError


def test_tile_reps_rules():
    # MXNet: empty reps are the identity; 0 repetitions need np_shape; negative never
    x = mx.nd.ones((2, 3))
    assert mx.nd.tile(x, ()).shape == (2, 3)
    for reps in ((1, 0), (2, -1)):
        with pytest.raises(MXNetError, match="tile"):
            mx.nd.tile(x, reps)
    with mx.np_shape():
        assert mx.nd.tile(x, (0, 2)).shape == (0, 6)
