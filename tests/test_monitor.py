"""``mx.mon.Monitor`` on an Executor: names, values and order as MXNet 1.9.1 prints them
(values checked in the oracle with the same graph: every argument set to 0.5)."""
import logging

import gluonlite as mx


def _executor():
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    act = mx.sym.Activation(fc, act_type="relu", name="relu")
    ex = act.simple_bind(mx.cpu(), data=(2, 4))
    for v in ex.arg_dict.values():
        v[:] = 0.5
    return ex


def test_forward_outputs_then_arguments():
    ex = _executor()
    mon = mx.mon.Monitor(1, pattern=".*")
    mon.install(ex)
    mon.tic()
    ex.forward(is_train=True)
    res = mon.toc()
    # forward only: the backward node outputs come after a backward (test below)
    assert res == [(1, "fc_output", "1.5\t"), (1, "relu_output", "1.5\t"),
                   (1, "data", "0.5\t"), (1, "fc_weight", "0.5\t"), (1, "fc_bias", "0.5\t")]
    assert mon.toc() == []  # nothing collected until the next tic


def test_interval_pattern_sort_and_custom_stat(caplog):
    ex = _executor()
    mon = mx.mon.Monitor(2, stat_func=lambda x: x.sum(), pattern="fc_.*", sort=True)
    mon.install(ex)
    steps = []
    for _ in range(4):
        mon.tic()
        ex.forward()
        steps.append(mon.toc())
    assert [len(s) for s in steps] == [3, 0, 3, 0]
    assert [name for _, name, _ in steps[0]] == ["fc_bias", "fc_output", "fc_weight"]
    assert steps[0][0] == (1, "fc_bias", "1.5\t") and steps[2][0][0] == 3
    with caplog.at_level(logging.INFO):
        mon.tic()
        ex.forward()
        mon.toc_print()
    assert "Batch:       5 fc_bias" in caplog.text


def test_executor_importable_from_mx_executor():
    assert mx.executor.Executor is type(_executor())


def test_backward_node_outputs_as_mxnet_names_them():
    """After a backward, MXNet's Monitor also reports each backward node's outputs (one
    gradient per input of the forward node): ``relu_backward_output`` for one input,
    ``fc_backward_output0..2`` for three.  Values checked with MXNet 1.9.1's Module
    example (test_module.py::test_monitor); a gradient nobody needs reads as zeros."""
    ex = _executor()
    mon = mx.mon.Monitor(1, pattern=".*backward.*", sort=True)
    mon.install(ex)
    mon.tic()
    ex.forward(is_train=True)
    ex.backward(mx.nd.ones((2, 3)))
    res = mon.toc()
    assert [name for _, name, _ in res] == ["fc_backward_output0", "fc_backward_output1",
                                           "fc_backward_output2", "relu_backward_output"]
    stats = {name: float(v) for _, name, v in res}
    # d relu / d fc = 1 where fc > 0 (all); weight grad = sum over the batch of data = 1.0;
    # data grad = sum over outputs of the weights = 1.5; norm/sqrt(size) of constants
    assert stats["relu_backward_output"] == 1.0
    assert stats["fc_backward_output0"] == 1.5
    assert stats["fc_backward_output1"] == 1.0
    assert stats["fc_backward_output2"] == 2.0
