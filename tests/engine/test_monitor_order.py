"""``monitor_all`` order: MXNet 1.9.1 reports a graph input right before each operator
input that reads it, not all inputs up front (literal from MXNet 1.9.1)."""
import gluonlite as mx

MXNET_ORDER = ['data', 'r1_input0', 'r1_output', 'add_lhs', 'w', 'add_rhs', 'add_output',
               'mul_lhs', 'data', 'mul_rhs', 'mul_output', 'cc_arg0', 'w', 'cc_arg1', 'data',
               'cc_arg2', 'cc_output']


def _graph():
    d = mx.sym.Variable("data", shape=(2, 3))
    w = mx.sym.Variable("w", shape=(2, 3))
    a = mx.sym.relu(d, name="r1")
    b = mx.sym.elemwise_add(a, w, name="add")
    c = mx.sym.elemwise_mul(b, d, name="mul")
    return mx.sym.concat(c, w, d, dim=0, name="cc")


def test_monitor_all_order_matches_mxnet():
    names = []
    ex = _graph().simple_bind(mx.cpu(), grad_req="null")
    ex.set_monitor_callback(lambda n, arr: names.append(n), monitor_all=True)
    ex.forward()
    assert names == MXNET_ORDER
    names.clear()
    ex.set_monitor_callback(lambda n, arr: names.append(n), monitor_all=False)
    ex.forward()
    assert names == ['r1_output', 'add_output', 'mul_output', 'cc_output']


def test_conv_names_as_mxnet_unit_test():
    data = mx.sym.Variable("data", shape=(10, 3, 10, 10))
    conv = mx.sym.Convolution(data, kernel=(2, 2), num_filter=1, name="conv")
    names = []
    ex = conv.simple_bind(mx.cpu(), grad_req="null")
    ex.set_monitor_callback(lambda n, arr: names.append(n), monitor_all=True)
    ex.forward()
    assert names == ['data', 'conv_data', 'conv_weight', 'conv_weight', 'conv_bias',
                     'conv_bias', 'conv_output']
