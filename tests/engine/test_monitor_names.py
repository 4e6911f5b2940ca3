"""Names monitors give operator inputs and outputs, against MXNet 1.9.1.

``fixtures/monitor_input_names.json`` (``fixtures/gen_monitor_input_names.py``) holds
the input names MXNet's monitor reports for each operator it could probe: the
operator's listed input names, or ``input0``, ``input1``, ... for operators without
``FListInputNames``.
"""
import json
import os

import gluonlite as mx
from gluonlite.ops.registry import get_op

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "monitor_input_names.json")


def _expected() -> dict:
    with open(FIXTURE) as f:
        return json.load(f)


def test_monitor_input_names_match_mxnet():
    wrong = []
    for name, names in _expected().items():
        op = get_op(name)
        try:
            ours = op.monitor_input_names(op.parse_attrs({}))
        except Exception:  # noqa: BLE001 - needs attributes to list inputs
            continue
        if tuple(ours[:len(names)]) != tuple(names):
            wrong.append((name, names, ours))
    assert not wrong, wrong


def _hook_names(block, x, monitor_all):
    names, ops = [], []
    block.register_op_hook(lambda n, o, a: (names.append(n), ops.append(o)), monitor_all)
    block(x)
    return names, ops


def test_op_hook_names_input0_for_unlisted_inputs():
    model = mx.gluon.nn.HybridSequential(prefix="dense_")
    with model.name_scope():
        model.add(mx.gluon.nn.Dense(2))
        model.add(mx.gluon.nn.Activation("relu"))
    model.initialize()
    for static in (False, True):
        model.hybridize(static_alloc=static)
        names, ops = _hook_names(model, mx.nd.ones((2, 3, 4)), True)
        assert names == ["dense_dense0_fwd_data", "dense_dense0_fwd_weight",
                         "dense_dense0_fwd_bias", "dense_dense0_fwd_output",
                         "dense_relu0_fwd_input0", "dense_relu0_fwd_output"]
        assert ops == ["FullyConnected"] * 4 + ["Activation"] * 2


def test_executor_monitor_names_scalar_op():
    x = mx.sym.var("x")
    y = mx.sym.FullyConnected(x * 2, num_hidden=2, name="fc")
    exe = y.simple_bind(mx.cpu(), x=(2, 3))
    got = []
    exe.set_monitor_callback(lambda n, a: got.append(n), monitor_all=True)
    exe.forward()
    scalar = [n for n in got if n.startswith("_mulscalar")]
    assert scalar and scalar[0].endswith("_input0")
    assert "fc_data" in got and "fc_weight" in got
