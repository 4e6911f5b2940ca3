"""``mx.contrib.onnx`` translations, one ONNX operator at a time, against ONNX Runtime.
Skips without ``onnx`` and ``onnxruntime``."""
import numpy as np
import pytest

import gluonlite as mx

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from gluonlite.contrib.onnx.onnx2mx.import_model import import_model  # noqa: E402

RNG = np.random.RandomState(5)
F32, I64 = np.float32, np.int64


def _u(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, shape).astype(F32)


def _i(*values):
    return np.array(values, I64)


# (id, op, input arrays (x first), initializers, attrs, opset)
CASES = [
    ("conv_sym", "Conv", [_u(2, 3, 7, 7)], {"w": _u(4, 3, 3, 3), "b": _u(4)},
     dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]), 13),
    ("conv_asym_group", "Conv", [_u(1, 4, 6, 6)], {"w": _u(4, 2, 3, 3)},
     dict(pads=[0, 1, 1, 0], group=2, dilations=[1, 1]), 13),
    ("conv_same_upper", "Conv", [_u(1, 2, 5, 5)], {"w": _u(3, 2, 2, 2)},
     dict(auto_pad="SAME_UPPER", strides=[2, 2]), 13),
    ("conv1d", "Conv", [_u(2, 3, 9)], {"w": _u(4, 3, 3)}, dict(pads=[1, 1]), 13),
    ("convtranspose", "ConvTranspose", [_u(1, 3, 4, 4)], {"w": _u(3, 2, 3, 3), "b": _u(2)},
     dict(strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1]), 13),
    ("gemm_dense", "Gemm", [_u(3, 5)], {"w": _u(4, 5), "b": _u(4)}, dict(transB=1), 13),
    ("gemm_general", "Gemm", [_u(5, 3)], {"w": _u(5, 4), "c": _u(3, 4)},
     dict(transA=1, alpha=0.5, beta=2.0), 13),
    ("matmul_2d", "MatMul", [_u(3, 5)], {"w": _u(5, 4)}, {}, 13),
    ("matmul_nd_2d", "MatMul", [_u(2, 3, 5)], {"w": _u(5, 4)}, {}, 13),
    ("matmul_batch", "MatMul", [_u(2, 3, 5)], {"w": _u(2, 5, 4)}, {}, 13),
    ("matmul_bcast", "MatMul", [_u(2, 3, 5)], {"w": _u(1, 5, 4)}, {}, 13),
    ("batchnorm", "BatchNormalization", [_u(2, 3, 4, 4)],
     {"g": _u(3), "b": _u(3), "m": _u(3), "v": _u(3, low=0.5, high=1.5)},
     dict(epsilon=1e-3), 13),
    ("instancenorm", "InstanceNormalization", [_u(2, 3, 4, 4)], {"g": _u(3), "b": _u(3)},
     dict(epsilon=1e-5), 13),
    ("lrn", "LRN", [_u(2, 5, 3, 3)], {}, dict(size=3, alpha=1e-3, beta=0.75, bias=2.0), 13),
    ("maxpool", "MaxPool", [_u(2, 3, 7, 7)], {}, dict(kernel_shape=[3, 3], strides=[2, 2],
                                                      pads=[1, 1, 1, 1]), 13),
    ("maxpool_ceil", "MaxPool", [_u(1, 2, 6, 6)], {}, dict(kernel_shape=[3, 3],
                                                           strides=[2, 2], ceil_mode=1), 13),
    ("maxpool_asym", "MaxPool", [_u(1, 2, 6, 6)], {}, dict(kernel_shape=[2, 2],
                                                           pads=[0, 0, 1, 1]), 13),
    ("avgpool_exclude", "AveragePool", [_u(2, 3, 6, 6)], {},
     dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]), 13),
    ("avgpool_include", "AveragePool", [_u(2, 3, 6, 6)], {},
     dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1, strides=[2, 2]), 13),
    ("globalavg", "GlobalAveragePool", [_u(2, 3, 4, 5)], {}, {}, 13),
    ("globalmax", "GlobalMaxPool", [_u(2, 3, 4, 5)], {}, {}, 13),
    ("relu", "Relu", [_u(3, 4)], {}, {}, 13),
    ("sigmoid", "Sigmoid", [_u(3, 4)], {}, {}, 13),
    ("tanh", "Tanh", [_u(3, 4)], {}, {}, 13),
    ("exp", "Exp", [_u(3, 4)], {}, {}, 13),
    ("log", "Log", [_u(3, 4, low=0.1, high=2)], {}, {}, 13),
    ("sqrt", "Sqrt", [_u(3, 4, low=0.1, high=2)], {}, {}, 13),
    ("abs", "Abs", [_u(3, 4)], {}, {}, 13),
    ("neg", "Neg", [_u(3, 4)], {}, {}, 13),
    ("reciprocal", "Reciprocal", [_u(3, 4, low=0.5, high=2)], {}, {}, 13),
    ("floor", "Floor", [_u(3, 4) * 3], {}, {}, 13),
    ("ceil", "Ceil", [_u(3, 4) * 3], {}, {}, 13),
    ("erf", "Erf", [_u(3, 4)], {}, {}, 13),
    ("sin", "Sin", [_u(3, 4)], {}, {}, 13),
    ("atan", "Atan", [_u(3, 4)], {}, {}, 13),
    ("softsign", "Softsign", [_u(3, 4)], {}, {}, 13),
    ("softplus", "Softplus", [_u(3, 4)], {}, {}, 13),
    ("leakyrelu", "LeakyRelu", [_u(3, 4)], {}, dict(alpha=0.2), 13),
    ("elu", "Elu", [_u(3, 4)], {}, dict(alpha=0.7), 13),
    ("selu", "Selu", [_u(3, 4)], {}, {}, 13),
    ("selu_custom", "Selu", [_u(3, 4)], {}, dict(alpha=1.5, gamma=1.1), 13),
    ("prelu_channel", "PRelu", [_u(2, 3, 4, 4)], {"s": _u(3, 1, 1)}, {}, 13),
    ("prelu_bcast", "PRelu", [_u(2, 3, 4)], {"s": _u(4)}, {}, 13),
    ("hardsigmoid", "HardSigmoid", [_u(3, 4) * 4], {}, dict(alpha=0.3, beta=0.4), 13),
    ("hardswish", "HardSwish", [_u(3, 4) * 4], {}, {}, 14),
    ("thresholdedrelu", "ThresholdedRelu", [_u(3, 4) * 2], {}, dict(alpha=0.5), 13),
    ("softmax13", "Softmax", [_u(2, 3, 4)], {}, dict(axis=1), 13),
    ("softmax11", "Softmax", [_u(2, 3, 4)], {}, dict(axis=1), 11),
    ("logsoftmax", "LogSoftmax", [_u(2, 5)], {}, {}, 13),
    ("hardmax", "Hardmax", [_u(2, 3, 4)], {}, dict(axis=1), 13),
    ("add", "Add", [_u(2, 3, 4)], {"y": _u(3, 4)}, {}, 13),
    ("sub", "Sub", [_u(2, 3, 4)], {"y": _u(4)}, {}, 13),
    ("mul", "Mul", [_u(2, 3, 4)], {"y": _u(2, 1, 4)}, {}, 13),
    ("div", "Div", [_u(2, 3, 4)], {"y": _u(3, 1, low=0.5, high=2)}, {}, 13),
    ("pow", "Pow", [_u(2, 3, low=0.5, high=2)], {"y": _u(3)}, {}, 13),
    ("sum3", "Sum", [_u(2, 3), _u(2, 3)], {"y": _u(3)}, {}, 13),
    ("mean", "Mean", [_u(2, 3), _u(2, 3)], {}, {}, 13),
    ("max", "Max", [_u(2, 3), _u(2, 3)], {}, {}, 13),
    ("min", "Min", [_u(2, 3)], {"y": _u(3)}, {}, 13),
    ("clip13", "Clip", [_u(3, 4) * 3], {"lo": np.array(-0.5, F32), "hi": np.array(1.0, F32)},
     {}, 13),
    ("clip6", "Clip", [_u(3, 4) * 3], {}, dict(min=-0.5, max=0.5), 6),
    ("concat", "Concat", [_u(2, 3), _u(2, 4)], {}, dict(axis=1), 13),
    ("flatten1", "Flatten", [_u(2, 3, 4)], {}, dict(axis=1), 13),
    ("flatten2", "Flatten", [_u(2, 3, 4, 5)], {}, dict(axis=2), 13),
    ("flatten0", "Flatten", [_u(2, 3, 4)], {}, dict(axis=0), 13),
    ("reshape", "Reshape", [_u(2, 3, 4)], {"s": _i(0, -1, 2)}, {}, 13),
    ("transpose", "Transpose", [_u(2, 3, 4)], {}, dict(perm=[2, 0, 1]), 13),
    ("transpose_default", "Transpose", [_u(2, 3, 4)], {}, {}, 13),
    ("squeeze13", "Squeeze", [_u(2, 1, 4, 1)], {"a": _i(1, -1)}, {}, 13),
    ("squeeze11", "Squeeze", [_u(2, 1, 4, 1)], {}, dict(axes=[1]), 11),
    ("unsqueeze13", "Unsqueeze", [_u(2, 4)], {"a": _i(0, -1)}, {}, 13),
    ("unsqueeze11", "Unsqueeze", [_u(2, 4)], {}, dict(axes=[1, 3]), 11),
    ("slice", "Slice", [_u(4, 6, 5)], {"st": _i(1, -4), "en": _i(1000, -1), "ax": _i(0, 1)},
     {}, 13),
    ("slice_step", "Slice", [_u(4, 6)], {"st": _i(-1, 0), "en": _i(-1000, 6),
                                          "ax": _i(0, 1), "sp": _i(-1, 2)}, {}, 13),
    ("slice9", "Slice", [_u(4, 6)], {}, dict(starts=[1], ends=[3], axes=[1]), 9),
    ("gather", "Gather", [_u(5, 3)], {"i": _i(0, 4, -1)}, dict(axis=0), 13),
    ("gather_axis1", "Gather", [_u(2, 5, 3)], {"i": np.array([[1, 2], [0, 4]], I64)},
     dict(axis=1), 13),
    ("pad", "Pad", [_u(1, 2, 3, 3)], {"p": _i(0, 0, 1, 2, 0, 0, 2, 1),
                                       "v": np.array(0.5, F32)}, {}, 13),
    ("pad_reflect", "Pad", [_u(1, 2, 4, 4)], {"p": _i(0, 0, 1, 1, 0, 0, 1, 1)},
     dict(mode="reflect"), 13),
    ("pad2", "Pad", [_u(1, 2, 3, 3)], {}, dict(pads=[0, 0, 1, 0, 0, 0, 0, 1]), 2),
    ("reducemean", "ReduceMean", [_u(2, 3, 4)], {}, dict(axes=[1], keepdims=0), 13),
    ("reducesum13", "ReduceSum", [_u(2, 3, 4)], {"a": _i(0, 2)}, {}, 13),
    ("reducemax", "ReduceMax", [_u(2, 3, 4)], {}, dict(axes=[-1]), 13),
    ("reducemin", "ReduceMin", [_u(2, 3, 4)], {}, {}, 13),
    ("reduceprod", "ReduceProd", [_u(2, 3)], {}, dict(axes=[1]), 13),
    ("reducel2", "ReduceL2", [_u(2, 3)], {}, dict(axes=[1]), 13),
    ("reducel1", "ReduceL1", [_u(2, 3)], {}, dict(axes=[0]), 13),
    ("reducelogsumexp", "ReduceLogSumExp", [_u(2, 3)], {}, dict(axes=[1]), 13),
    ("reducesumsquare", "ReduceSumSquare", [_u(2, 3)], {}, dict(axes=[1]), 13),
    ("argmax", "ArgMax", [_u(3, 4)], {}, dict(axis=1, keepdims=0), 13),
    ("argmin", "ArgMin", [_u(3, 4)], {}, dict(axis=0), 13),
    ("identity", "Identity", [_u(3, 4)], {}, {}, 13),
    ("dropout", "Dropout", [_u(3, 4)], {}, {}, 13),
    ("cast", "Cast", [_u(3, 4) * 5], {}, dict(to=TensorProto.INT32), 13),
    ("split_equal", "Split", [_u(2, 6)], {}, dict(axis=1), 13),
    ("split_sizes", "Split", [_u(2, 6)], {"s": _i(2, 4)}, dict(axis=1), 13),
    ("expand", "Expand", [_u(3, 1)], {"s": _i(2, 1, 4)}, {}, 13),
    ("tile", "Tile", [_u(2, 3)], {"r": _i(2, 2)}, {}, 13),
    ("depthtospace", "DepthToSpace", [_u(1, 8, 2, 3)], {}, dict(blocksize=2), 13),
    ("spacetodepth", "SpaceToDepth", [_u(1, 2, 4, 6)], {}, dict(blocksize=2), 13),
    ("topk", "TopK", [_u(3, 5)], {"k": _i(2)}, dict(axis=1), 13),
    ("lpnorm", "LpNormalization", [_u(3, 4)], {}, dict(p=2, axis=1), 13),
    ("less", "Less", [_u(3, 4)], {"y": _u(4)}, {}, 13),
    ("greater", "Greater", [_u(3, 4)], {"y": _u(3, 4)}, {}, 13),
    ("where", "Where", [np.array([[1, 0, 1]], bool)], {"a": _u(2, 3), "b": _u(3)}, {}, 13),
    ("upsample", "Resize", [_u(1, 2, 3, 3)],
     {"roi": np.zeros(0, F32), "sc": np.array([1, 1, 2, 2], F32)}, dict(mode="nearest"), 13),
    ("lppool", "LpPool", [_u(1, 2, 4, 4)], {}, dict(kernel_shape=[2, 2], p=2), 13),
]


def _model(op, inputs, inits, attrs, opset):
    names = ["x"] + [f"x{k}" for k in range(1, len(inputs))]
    in_infos = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype),
                                              a.shape) for n, a in zip(names, inputs)]
    tensors = [numpy_helper.from_array(v, k) for k, v in inits.items()]
    node_inputs = names + list(inits)
    if op == "Resize":
        node_inputs = ["x", "roi", "sc"]
    n_out = 2 if op in ("Split", "TopK") else 1
    outs = [f"y{k}" for k in range(n_out)]
    node = helper.make_node(op, node_inputs, outs, name="node", **attrs)
    out_infos = [helper.make_empty_tensor_value_info(o) for o in outs]
    graph = helper.make_graph([node], "g", in_infos, out_infos, initializer=tensors)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model, dict(zip(names, inputs))


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_single_op(case, tmp_path):
    _, op, inputs, inits, attrs, opset = case
    model, feeds = _model(op, inputs, inits, attrs, opset)
    path = str(tmp_path / "m.onnx")
    onnx.save(model, path)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    want = sess.run(None, feeds)
    sym, arg_params, aux_params = import_model(path)
    args = dict(arg_params)
    args.update({k: mx.nd.array(v, dtype=v.dtype if v.dtype != bool else F32)
                 for k, v in feeds.items()})
    exe = sym.bind(mx.cpu(), args, aux_states=dict(aux_params), grad_req="null")
    got = [o.asnumpy() for o in exe.forward(is_train=False)]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape, (g.shape, w.shape)
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64),
                                   rtol=1e-5, atol=1e-5)
