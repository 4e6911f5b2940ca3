"""``_rnn_param_concat``'s shape inference in both directions: a known output size (from
the ``RNN`` operator's packed parameter size) fills the inputs of unknown size, split
equally among them as MXNet does."""
import pytest

from gluonlite.base import MXNetError
from gluonlite.ops.registry import get_op
from gluonlite.ops.rnn import _concat_infer


def _attrs(n, dim=0):
    return get_op("_rnn_param_concat").parse_attrs(dict(num_args=n, dim=dim))


def test_forward_direction():
    assert _concat_infer(_attrs(3), [(6,), (4,), (2,)]) == ([(6,), (4,), (2,)], [(12,)])
    ins, outs = _concat_infer(_attrs(2), [(6,), (0,)])
    assert ins == [(6,), (0,)] and outs == [(0,)]


def test_unknown_inputs_from_the_output():
    # a bidirectional layer's two i2h weights of unknown input size, flattened
    ins, outs = _concat_infer(_attrs(4), [(0,), (40,), (0,), (40,)], [(480,)])
    assert ins == [(200,), (40,), (200,), (40,)] and outs == [(480,)]
    ins, outs = _concat_infer(_attrs(2, dim=1), [(0, 0), None], [(3, 8)])
    assert ins == [(3, 4), (3, 4)] and outs == [(3, 8)]
    ins, outs = _concat_infer(_attrs(2, dim=1), [(3, 4), None], [(3, 7)])
    assert ins == [(3, 4), (3, 3)] and outs == [(3, 7)]


def test_output_too_small_or_uneven_raises():
    with pytest.raises(MXNetError, match="_rnn_param_concat"):
        _concat_infer(_attrs(2), [(10,), (0,)], [(8,)])
    with pytest.raises(MXNetError, match="_rnn_param_concat"):
        _concat_infer(_attrs(3), [(10,), (0,), (0,)], [(13,)])
