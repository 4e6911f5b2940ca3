"""The graph data model: MXNet's DFS post-order and argument/aux classification."""
import pytest

from gluonlite.base import MXNetError
from gluonlite.symbol.graph import list_variables, op_node, topo_order, variable_node


def _fc(name, data):
    w = variable_node(f"{name}_weight")
    b = variable_node(f"{name}_bias")
    return op_node("FullyConnected", name, [(data, 0), (w, 0), (b, 0)], {"num_hidden": 4})


def test_topo_order_is_dfs_post_order_with_inputs_in_order():
    x = variable_node("data")
    fc1 = _fc("fc1", x)
    fc2 = _fc("fc2", fc1)
    names = [n.name for n in topo_order([(fc2, 0)])]
    assert names == ["data", "fc1_weight", "fc1_bias", "fc1", "fc2_weight", "fc2_bias", "fc2"]


def test_shared_input_visited_once_and_heads_in_order():
    x = variable_node("x")
    a = op_node("relu", "a", [(x, 0)])
    b = op_node("sigmoid", "b", [(x, 0)])
    order = topo_order([(b, 0), (a, 0)])
    assert [n.name for n in order] == ["x", "b", "a"]


def test_aux_states_are_split_from_arguments():
    x = variable_node("data")
    names = ["gamma", "beta", "moving_mean", "moving_var"]
    params = [variable_node(f"bn_{n}") for n in names]
    bn = op_node("BatchNorm", "bn", [(x, 0)] + [(p, 0) for p in params])
    args, aux = list_variables([(bn, 0)])
    assert [n.name for n in args] == ["data", "bn_gamma", "bn_beta"]
    assert [n.name for n in aux] == ["bn_moving_mean", "bn_moving_var"]
    assert bn.num_outputs() == 3 and bn.num_visible_outputs() == 1
    assert bn.output_names() == ("bn_output", "bn_mean", "bn_var")


def test_wrong_input_count_names_the_operator():
    x = variable_node("x")
    with pytest.raises(MXNetError, match="FullyConnected"):
        op_node("FullyConnected", "fc", [(x, 0)], {"num_hidden": 2})
