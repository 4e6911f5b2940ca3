"""``DataParallelExecutorGroup``: parameter arrays exist from bind on (zeros until
``init_params``), and ``shared_data_arrays`` holds per device the arrays of every
argument that is not a parameter, the very dicts of a ``shared_group`` (MXNet 1.9.1's
``test_executor_group``)."""
import numpy as np

import gluonlite as mx
from gluonlite.module.executor_group import DataParallelExecutorGroup
from gluonlite.test_utils import same_array


def _sym(extra: bool):
    data = mx.sym.var("data")
    h = mx.sym.FullyConnected(data, num_hidden=4, name="fc1")
    if extra:
        h = mx.sym.FullyConnected(h, num_hidden=4, name="fc2")
    out = mx.sym.FullyConnected(h, num_hidden=3, name="out")
    return mx.sym.SoftmaxOutput(out, name="softmax")


def _group(sym, param_names, shared=None):
    return DataParallelExecutorGroup(
        symbol=sym, contexts=[mx.cpu(0), mx.cpu(1)], workload=[1, 1],
        data_shapes=[("data", (6, 5))], label_shapes=[("softmax_label", (6,))],
        param_names=param_names, for_training=True, inputs_need_grad=False,
        shared_group=shared)


def test_shared_data_arrays_and_params_at_bind():
    sym1 = _sym(False)
    params1 = [n for n in sym1.list_arguments() if n not in ("data", "softmax_label")]
    g1 = _group(sym1, params1)
    for k in range(2):
        table = g1.shared_data_arrays[k]
        assert sorted(table) == ["data", "softmax_label"]
        assert table["data"].shape == (3, 5) and table["softmax_label"].shape == (3,)
        # MXNet allocates every argument at bind
        np.testing.assert_array_equal(g1.execs[k].arg_dict["fc1_weight"].asnumpy(), 0)
    sym2 = _sym(True)
    g2 = _group(sym2, params1, shared=g1)  # fc2_* are inputs of g2, not parameters
    extra = [n for n in sym2.list_arguments() if n not in params1]
    for k in range(2):
        assert g2.shared_data_arrays[k] is g1.shared_data_arrays[k]
        assert sorted(g1.shared_data_arrays[k]) == sorted(extra)
        for name in params1:
            assert same_array(g1.execs[k].arg_dict[name], g2.execs[k].arg_dict[name])
            assert same_array(g1.execs[k].grad_dict[name], g2.execs[k].grad_dict[name])


def test_module_still_trains_after_bind_allocation():
    sym = _sym(False)
    mod = mx.mod.Module(sym, context=[mx.cpu(0), mx.cpu(1)])
    mod.bind(data_shapes=[("data", (6, 5))], label_shapes=[("softmax_label", (6,))])
    mod.init_params(mx.init.Constant(0.5))
    args, _ = mod.get_params()
    np.testing.assert_array_equal(args["fc1_weight"].asnumpy(), 0.5)
    batch = mx.io.DataBatch([mx.nd.ones((6, 5))], [mx.nd.zeros((6,))])
    mod.forward(batch, is_train=True)
    mod.backward()
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), 1 / 3, rtol=1e-6)
