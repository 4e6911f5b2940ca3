"""``mx.operator.get_operator_arguments``: MXNet 1.9.1's argument names and type strings,
generated from the registry's declared attributes (literals from MXNet 1.9.1's
``mxnet.operator.get_operator_arguments``)."""
import pytest

import gluonlite as mx
from gluonlite.ops.arguments import describe_attr
from gluonlite.ops.attrs import Attr

CASES = [
    ('Activation', ['data', 'act_type'], ['NDArray-or-Symbol', "{'relu', 'sigmoid', 'softrelu', 'softsign', 'tanh'}, required"]),
    ('FullyConnected', ['data', 'weight', 'bias', 'num_hidden', 'no_bias', 'flatten'], ['NDArray-or-Symbol', 'NDArray-or-Symbol', 'NDArray-or-Symbol', 'int, required', 'boolean, optional, default=0', 'boolean, optional, default=1']),
    ('topk', ['data', 'axis', 'k', 'ret_typ', 'is_ascend', 'dtype'], ['NDArray-or-Symbol', "int or None, optional, default='-1'", "int, optional, default='1'", "{'both', 'indices', 'mask', 'value'},optional, default='indices'", 'boolean, optional, default=0', "{'float16', 'float32', 'float64', 'int32', 'int64', 'uint8'},optional, default='float32'"]),
    ('sort', ['data', 'axis', 'is_ascend'], ['NDArray-or-Symbol', "int or None, optional, default='-1'", 'boolean, optional, default=1']),
    ('Reshape', ['data', 'shape', 'reverse', 'target_shape', 'keep_highest'], ['NDArray-or-Symbol', 'Shape(tuple), optional, default=[]', 'boolean, optional, default=0', 'Shape(tuple), optional, default=[]', 'boolean, optional, default=0']),
    ('Dropout', ['data', 'p', 'mode', 'axes', 'cudnn_off'], ['NDArray-or-Symbol', 'float, optional, default=0.5', "{'always', 'training'},optional, default='training'", 'Shape(tuple), optional, default=[]', 'boolean or None, optional, default=0']),
    ('SoftmaxOutput', ['data', 'label', 'grad_scale', 'ignore_label', 'multi_output', 'use_ignore', 'preserve_shape', 'normalization', 'out_grad', 'smooth_alpha'], ['NDArray-or-Symbol', 'NDArray-or-Symbol', 'float, optional, default=1', 'float, optional, default=-1', 'boolean, optional, default=0', 'boolean, optional, default=0', 'boolean, optional, default=0', "{'batch', 'null', 'valid'},optional, default='null'", 'boolean, optional, default=0', 'float, optional, default=0']),
    ('clip', ['data', 'a_min', 'a_max'], ['NDArray-or-Symbol', 'float, required', 'float, required']),
    ('slice', ['data', 'begin', 'end', 'step'], ['NDArray-or-Symbol', 'Shape(tuple), required', 'Shape(tuple), required', 'Shape(tuple), optional, default=[]']),
    ('LayerNorm', ['data', 'gamma', 'beta', 'axis', 'eps', 'output_mean_var'], ['NDArray-or-Symbol', 'NDArray-or-Symbol', 'NDArray-or-Symbol', "int, optional, default='-1'", 'float, optional, default=9.99999975e-06', 'boolean, optional, default=0']),
    ('_contrib_allclose', ['a', 'b', 'rtol', 'atol', 'equal_nan'], ['NDArray-or-Symbol', 'NDArray-or-Symbol', 'float, optional, default=9.99999975e-06', 'float, optional, default=9.99999994e-09', 'boolean, optional, default=1']),
    ('argmax', ['data', 'axis', 'keepdims'], ['NDArray-or-Symbol', "int or None, optional, default='None'", 'boolean, optional, default=0']),
    ('_zeros', ['shape', 'ctx', 'dtype'], ['Shape(tuple), optional, default=[]', "string, optional, default=''", "{'bfloat16', 'bool', 'float16', 'float32', 'float64', 'int32', 'int64', 'int8', 'uint8'},optional, default='float32'"]),
    ('Cast', ['data', 'dtype'], ['NDArray-or-Symbol', "{'bfloat16', 'bool', 'float16', 'float32', 'float64', 'int32', 'int64', 'int8', 'uint8'}, required"]),
    ('SliceChannel', ['data', 'num_outputs', 'axis', 'squeeze_axis'], ['NDArray-or-Symbol', 'int, required', "int, optional, default='1'", 'boolean, optional, default=0']),
    ('take', ['a', 'indices', 'axis', 'mode'], ['NDArray-or-Symbol', 'NDArray-or-Symbol', "int, optional, default='0'", "{'clip', 'raise', 'wrap'},optional, default='clip'"]),
    ('sum', ['data', 'axis', 'keepdims', 'exclude'], ['NDArray-or-Symbol', 'Shape or None, optional, default=None', 'boolean, optional, default=0', 'boolean, optional, default=0']),
]


@pytest.mark.parametrize("op,names,types", CASES, ids=[c[0] for c in CASES])
def test_matches_mxnet(op, names, types):
    args = mx.operator.get_operator_arguments(op)
    assert isinstance(args, mx.operator.OperatorArguments)
    assert args.names == names
    assert args.types == types
    assert args.narg == len(names)


def test_declared_cpp_types():
    # what the kind alone does not tell: MXNet's unsigned and double fields
    assert describe_attr(Attr("int", 1, mx_type="int (non-negative)")) == \
        "int (non-negative), optional, default=1"
    assert describe_attr(Attr("int", 1024, mx_type="long (non-negative)")) == \
        "long (non-negative), optional, default=1024"
    assert describe_attr(Attr("float", 1.0, mx_type="double")) == "double, optional, default=1"
    assert describe_attr(Attr("floats", (4.0, 8.0))) == "tuple of <float>, optional, default=[4,8]"


def test_unknown_operator():
    with pytest.raises(mx.base.MXNetError):
        mx.operator.get_operator_arguments("no_such_operator")
