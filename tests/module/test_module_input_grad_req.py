"""A Module bound with ``inputs_need_grad=True`` gives its data the ``grad_req`` it was
bound with, as MXNet 1.9.1's executor group: ``'null'`` gives no input gradient
(``get_input_grads()`` is ``[None]``), ``'add'`` accumulates over backward calls, a dict
names the data's own request.  Values as MXNet 1.9.1 gives them (FullyConnected with
weights of ones, data ``arange(6)``, head gradients of ones, two backward calls)."""
import numpy as np
import pytest

import gluonlite as mx


def _run(req):
    data = mx.sym.Variable("data")
    y = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
    mod = mx.mod.Module(y, label_names=None, context=mx.cpu())
    mod.bind(data_shapes=[("data", (2, 3))], label_shapes=None, inputs_need_grad=True,
             grad_req=req)
    mod.init_params(initializer=mx.init.One())
    x = mx.nd.array(np.arange(6).reshape(2, 3))
    for _ in range(2):
        mod.forward(mx.io.DataBatch(data=[x]), is_train=True)
        mod.backward(out_grads=[mx.nd.ones((2, 2))])
    g = mod.get_input_grads()[0]
    wg = mod._exec_group.execs[0].grad_dict.get("fc_weight")
    return (None if g is None else g.asnumpy().ravel().tolist(),
            None if wg is None else wg.asnumpy().ravel().tolist())


@pytest.mark.parametrize("req,data_grad,weight_grad", [
    ("write", [2.0] * 6, [3.0, 5.0, 7.0] * 2),
    ("add", [4.0] * 6, [6.0, 10.0, 14.0] * 2),
    ("null", None, None),
    ({"data": "add", "fc_weight": "null"}, [4.0] * 6, None),
    ({"data": "null"}, None, [3.0, 5.0, 7.0] * 2),
])
def test_data_follows_bound_grad_req(req, data_grad, weight_grad):
    assert _run(req) == (data_grad, weight_grad)
