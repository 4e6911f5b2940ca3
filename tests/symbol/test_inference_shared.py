"""The one shape/dtype inference (``symbol/inference.py``) behind ``Symbol.infer_shape``,
``infer_type``, deferred initialization and the CachedOp's plans."""
import collections

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.engine.graph_info import GraphInfo
from gluonlite.engine.plan import infer_entries
from gluonlite.ops import registry
from gluonlite.symbol import inference
from gluonlite.symbol.graph import Node, topo_order, variable_node


@pytest.fixture
def counted(monkeypatch):
    """Calls of every operator's ``infer_shape`` and ``infer_type``, by operator name."""
    counts = {"shape": collections.Counter(), "type": collections.Counter()}
    shape_fn, type_fn = registry.OpDef.infer_shape, registry.OpDef.infer_type

    def infer_shape(self, *args, **kwargs):
        counts["shape"][self.name] += 1
        return shape_fn(self, *args, **kwargs)

    def infer_type(self, *args, **kwargs):
        counts["type"][self.name] += 1
        return type_fn(self, *args, **kwargs)
    monkeypatch.setattr(registry.OpDef, "infer_shape", infer_shape)
    monkeypatch.setattr(registry.OpDef, "infer_type", infer_type)
    return counts


def test_first_hybridized_call_infers_each_node_once_per_pass(counted):
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(16, activation="relu"), mx.gluon.nn.Dense(4))
    net.initialize()
    net.hybridize()
    x = mx.nd.ones((8, 20))
    net(x).wait_to_read()
    # one forward sweep for deferred initialization, one for the plan (it was 10 and 5)
    assert counted["shape"]["FullyConnected"] == 4
    assert counted["shape"]["Activation"] == 2
    assert counted["type"]["FullyConnected"] == 2
    counted["shape"].clear()
    net(x).wait_to_read()  # the plan is kept
    assert not counted["shape"]


def _mlp():
    x = mx.sym.var("data")
    for i in range(3):
        x = mx.sym.FullyConnected(x, num_hidden=5 + i, name=f"fc{i}")
        x = mx.sym.Activation(x, act_type="tanh", name=f"act{i}")
    return x


def test_plan_and_symbol_agree():
    sym = _mlp()
    arg_shapes, out_shapes, _ = sym.infer_shape(data=(4, 3))
    arg_types, out_types, _ = sym.infer_type(data="float64")
    info = GraphInfo(sym._heads)
    by_name = dict(zip(sym.list_arguments(), arg_shapes))
    shapes, dtypes = infer_entries(info, [by_name[n] for n in info.input_names],
                                   ["float64"] * info.n_inputs)
    assert [shapes[h] for h in info.heads] == out_shapes
    assert [dtypes[h].type for h in info.heads] == out_types
    assert all(type(d) is int for s in shapes for d in s)  # noqa: E721
    assert arg_types == [np.float64] * len(arg_shapes)


def test_two_way_stage_when_a_consumer_fills_a_shape_late():
    # FullyConnected(b) comes first in the order and knows nothing; ``a + b`` gives b
    a, b = mx.sym.var("a"), mx.sym.var("b")
    sym = mx.sym.Group([mx.sym.FullyConnected(b, num_hidden=2, name="fc"), a + b])
    arg_shapes, out_shapes, _ = sym.infer_shape(a=(3, 4))
    assert dict(zip(sym.list_arguments(), arg_shapes))["b"] == (3, 4)
    assert out_shapes == [(3, 2), (3, 4)]


class _FakeOp:
    """Just what inference reads of an OpDef."""

    infer_shape_outputs = False
    elementwise = False

    def __init__(self, name, rule):
        self.name = name
        self.rule = rule
        self.seen = []

    def infer_shape(self, attrs, ins, outs=None):
        self.seen.append(ins[0])
        return self.rule(ins)

    def infer_type(self, attrs, ins):
        return ins, [ins[0]]

    def input_names(self, attrs):
        return ["data"]

    def is_elementwise(self, attrs):
        return False

    def num_outputs(self, attrs):
        return 1


def test_late_back_inference_revisits_earlier_readers():
    # ``first`` reads w while it is unknown and still answers a complete shape; ``second``
    # fills w afterwards: the forward sweep alone is not final, ``first`` sees w again
    first = _FakeOp("first", lambda ins: (ins, [(1,)]))
    second = _FakeOp("second", lambda ins: ([(5,)], [(5,)]))
    w = variable_node("w")
    n1 = Node(first, "n1", None, [(w, 0)])
    n2 = Node(second, "n2", None, [(w, 0)])
    order = topo_order([(n1, 0), (n2, 0)])
    index = inference.index_graph(order)
    shapes = [None] * index.n_slots
    assert inference.infer_slots(index, shapes, None)
    assert shapes[index.slot_of[(id(w), 0)]] == (5,)
    assert first.seen == [None, (5,)]


def test_error_messages_name_the_node_and_op():
    sym = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=4, name="fc")
    with pytest.raises(MXNetError, match=r"Error in operator fc \(FullyConnected\).*"
                                         r"known input shapes: data \(x\)=\(2, 3\)"):
        sym.infer_shape(x=(2, 3), fc_weight=(4, 5))
    info = GraphInfo(sym._heads)
    with pytest.raises(MXNetError, match=r"CachedOp: shape inference failed at node fc "
                                         r"\(FullyConnected\)"):
        infer_entries(info, [(2, 3), (4, 5), (4,)], ["float32"] * 3)
    with pytest.raises(MXNetError, match=r"Error in operator fc \(FullyConnected\): "):
        sym.infer_type(x="float32", fc_weight="float64")
    with pytest.raises(MXNetError, match=r"CachedOp: type inference failed at node fc "):
        infer_entries(info, [(2, 3), (4, 3), (4,)], ["float32", "float64", "float32"])


def test_plan_keeps_partial_shapes_open():
    # zeros(shape=(0, 5)) + x: the plan's forward sweep leaves the zeros open, the
    # two-way stage fills it from x; a 0 in an input array is a real size
    sym = mx.sym.var("x") + mx.sym.zeros(shape=(0, 5))
    info = GraphInfo(sym._heads)
    shapes, dtypes = infer_entries(info, [(3, 5)], ["float32"])
    assert all(s == (3, 5) for s in shapes)
    shapes, _ = infer_entries(info, [(0, 5)], ["float32"])
    assert shapes[0] == (0, 5) and shapes[info.heads[0]] is None
