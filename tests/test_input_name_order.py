"""Inputs bind by name, in the order the caller lists them, never sorted: a graph of
``a - b`` imported with ``['b', 'a']`` and called with ``(b, a)`` still computes ``a - b``.
For ``SymbolBlock`` (built and imported from files), ``Module`` and the Executor."""
import itertools

import numpy as np
import pytest

import gluonlite as mx

NAMES = ("zeta", "alpha", "mid")  # neither sorted nor reverse-sorted
VALUES = {name: np.full((2, 3), value, dtype=np.float32)
          for name, value in zip(NAMES, (7.0, 2.0, 5.0))}


def _graph():
    zeta, alpha, mid = (mx.sym.var(n) for n in NAMES)
    return (zeta - alpha) * 10 + mid  # 55 for the values above; any permutation differs


EXPECTED = (7.0 - 2.0) * 10 + 5.0
ORDERS = list(itertools.permutations(NAMES))


@pytest.mark.parametrize("order", ORDERS, ids=["-".join(o) for o in ORDERS])
def test_symbol_block_binds_inputs_by_name(order, tmp_path):
    block = mx.gluon.SymbolBlock(_graph(), [mx.sym.var(n) for n in order])
    got = block(*(mx.nd.array(VALUES[n]) for n in order)).asnumpy()
    np.testing.assert_array_equal(got, EXPECTED)
    # exported and imported with the names in this order
    block.hybridize()
    block(*(mx.nd.array(VALUES[n]) for n in order))
    block.export(str(tmp_path / "net"))
    imported = mx.gluon.SymbolBlock.imports(str(tmp_path / "net-symbol.json"), list(order),
                                            str(tmp_path / "net-0000.params"))
    got = imported(*(mx.nd.array(VALUES[n]) for n in order)).asnumpy()
    np.testing.assert_array_equal(got, EXPECTED)


@pytest.mark.parametrize("order", ORDERS, ids=["-".join(o) for o in ORDERS])
def test_module_binds_data_by_name(order):
    module = mx.mod.Module(_graph(), data_names=order, label_names=None)
    module.bind(data_shapes=[(n, (2, 3)) for n in order], for_training=False)
    module.init_params()
    batch = mx.io.DataBatch([mx.nd.array(VALUES[n]) for n in order])
    module.forward(batch, is_train=False)
    np.testing.assert_array_equal(module.get_outputs()[0].asnumpy(), EXPECTED)


@pytest.mark.parametrize("order", ORDERS, ids=["-".join(o) for o in ORDERS])
def test_executor_binds_a_dict_by_name(order):
    exe = _graph().bind(mx.cpu(), args={n: mx.nd.array(VALUES[n]) for n in order})
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), EXPECTED)


def test_executor_binds_a_list_in_list_arguments_order():
    graph = _graph()
    assert graph.list_arguments() == list(NAMES)  # the order of first use, not sorted
    exe = graph.bind(mx.cpu(), args=[mx.nd.array(VALUES[n]) for n in NAMES])
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), EXPECTED)
