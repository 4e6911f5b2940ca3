"""``mx.kv``'s Python stores: what a store without the optimizer capability raises."""
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError


def test_teststore_optimizer_methods_raise_not_implemented():
    kv = mx.kv.create("teststore")
    assert not kv.is_capable("optimizer")
    for call in (lambda: kv.set_optimizer(mx.optimizer.create("sgd")),
                 lambda: kv.save_optimizer_states("states"),
                 lambda: kv.load_optimizer_states("states")):
        with pytest.raises(NotImplementedError):   # MXNet's exception ...
            call()
        with pytest.raises(MXNetError, match="TestStore"):  # ... and ours
            call()
