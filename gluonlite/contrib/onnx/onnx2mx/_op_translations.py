"""The ONNX operator translations (``mxnet.contrib.onnx.onnx2mx._op_translations``).

Each is ``translate(attrs, inputs, proto_obj) -> (op, attrs, inputs)``: ``op`` is the
name of a ``mx.sym`` operator to apply to ``inputs`` with ``attrs`` under the ONNX
node's name, a finished symbol, or (for values known at import) a NumPy array.
``proto_obj`` is the :class:`~.import_onnx.GraphProto` at work: its ``opset_version``,
its constants and the input shapes it can infer.  They live in three modules by
family; this one gathers them under MXNet's module path.
"""
from ._translate_math import (  # noqa: F401
    _cos, _cosh, _log, _sin, _sinh, _tan, absolute, add, add_n, arccos, arccosh, arcsin,
    arcsinh, arctan, arctanh, argmax, argmin, ceil, clip, divide, equal, erf, exponent,
    floor, greater, greater_equal, identity, lesser, lesser_equal, logical_and,
    logical_not, logical_or, logical_xor, maximum, mean, minimum, multiply, negative,
    power, reciprocal, reduce_l1, reduce_l2, reduce_log_sum, reduce_log_sum_exp,
    reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_sum, reduce_sum_square,
    relu, round_even, sigmoid, sign, softsign, squareroot, subtract, tanh, where)
from ._translate_nn import (  # noqa: F401
    _elu, _prelu, _selu, avg_pooling, batch_norm, conv, deconv, dropout, fully_connected,
    gelu, global_avgpooling, global_lppooling, global_maxpooling, hardmax, hardsigmoid,
    hardswish, instance_norm, leaky_relu, linalg_gemm, local_response_norm, log_softmax,
    lp_pooling, lpnormalization, matrix_multiplication, max_pooling, max_roi_pooling,
    softmax, softplus, thresholded_relu, upsample)
from ._translate_tensor import (  # noqa: F401
    _slice, cast, concat, constant, constant_of_shape, depthtospace, expand, flatten,
    gather, gather_nd, pad, random_normal, random_uniform, range_, reshape,
    sample_multinomial, shape, size, spacetodepth, split, squeeze, tile, topk, transpose,
    unsqueeze)
