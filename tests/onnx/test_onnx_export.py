"""``mx.onnx.export_model``: exported models run in ONNX Runtime give gluonlite's (and,
for the models MXNet exported, MXNet 1.9.1's) outputs.  Skips without ``onnx`` and
``onnxruntime``."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
import gluonlite.onnx  # noqa: E402,F401 - as MXNet: ``import mxnet.onnx``

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "fixtures", "models")
RNG = np.random.RandomState(0)


def _run_onnx(path, feeds):
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def _params_for(sym, shapes, dtypes=None):
    """Random parameters (positive variances) for every argument not in ``shapes``."""
    arg_shapes, _, aux_shapes = sym.infer_shape(**shapes)
    params = {}
    for name, shape in zip(sym.list_arguments(), arg_shapes):
        if name not in shapes:
            params[name] = RNG.uniform(-1, 1, shape).astype(np.float32)
    for name, shape in zip(sym.list_auxiliary_states(), aux_shapes):
        low = 0.5 if name.endswith("var") else -0.5
        params[name] = RNG.uniform(low, 1.0, shape).astype(np.float32)
    return params


def _check(sym, inputs, tmp_path, rtol=1e-5, atol=1e-5, dtypes=None):
    """Export ``sym`` with random parameters; ONNX Runtime against the gluonlite executor."""
    shapes = {k: v.shape for k, v in inputs.items()}
    params = _params_for(sym, shapes)
    args = {k: mx.nd.array(v, dtype=v.dtype) for k, v in {**inputs, **params}.items()}
    aux = {k: args.pop(k) for k in sym.list_auxiliary_states()}
    ex = sym.bind(mx.cpu(), args, aux_states=aux)
    want = [o.asnumpy() for o in ex.forward(is_train=False)]
    names = [n for n in sym.list_inputs() if n in inputs]
    path = mx.onnx.export_model(sym, {k: mx.nd.array(v) for k, v in params.items()},
                                [inputs[n].shape for n in names],
                                [inputs[n].dtype for n in names],
                                str(tmp_path / "model.onnx"))
    onnx.checker.check_model(onnx.load(path))
    got = _run_onnx(path, {n: inputs[n] for n in names})
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def _x(*shape):
    return RNG.uniform(-2, 2, shape).astype(np.float32)


S = mx.sym
D = S.var("data")
CASES = {
    "conv2d_groups": (lambda: S.Convolution(D, kernel=(3, 3), num_filter=4, num_group=2,
                                            stride=(2, 1), pad=(1, 2), dilate=(1, 2)),
                      (2, 4, 9, 10)),
    "conv1d_no_bias": (lambda: S.Convolution(D, kernel=(3,), num_filter=3, no_bias=True),
                       (2, 2, 7)),
    "conv3d": (lambda: S.Convolution(D, kernel=(2, 3, 3), num_filter=2, pad=(1, 1, 1)),
               (1, 2, 4, 5, 5)),
    "deconv_adj": (lambda: S.Deconvolution(D, kernel=(3, 3), num_filter=3, stride=(2, 2),
                                           pad=(1, 1), adj=(1, 0)), (2, 2, 4, 5)),
    "deconv_target": (lambda: S.Deconvolution(D, kernel=(4, 4), num_filter=2, stride=(2, 2),
                                              target_shape=(9, 8), no_bias=True),
                      (1, 3, 4, 4)),
    "fc_flatten": (lambda: S.FullyConnected(D, num_hidden=5), (3, 2, 2, 2)),
    "fc_no_flatten": (lambda: S.FullyConnected(D, num_hidden=4, flatten=False), (2, 3, 6)),
    "fc_no_bias": (lambda: S.FullyConnected(D, num_hidden=4, no_bias=True), (3, 6)),
    "batchnorm": (lambda: S.BatchNorm(D, fix_gamma=False, eps=1e-3), (2, 3, 4, 4)),
    "batchnorm_fix_gamma": (lambda: S.BatchNorm(D), (2, 3, 5)),
    "instancenorm": (lambda: S.InstanceNorm(D, eps=1e-4), (2, 3, 4, 5)),
    "layernorm_last": (lambda: S.LayerNorm(D), (2, 3, 6)),
    "layernorm_axis1": (lambda: S.LayerNorm(D, axis=1), (2, 4, 3, 3)),
    "l2norm_instance": (lambda: S.L2Normalization(D), (2, 3, 4)),
    "l2norm_channel": (lambda: S.L2Normalization(D, mode="channel"), (2, 3, 4, 2)),
    "l2norm_spatial": (lambda: S.L2Normalization(D, mode="spatial"), (2, 3, 4, 2)),
    "lrn": (lambda: S.LRN(D, nsize=3, alpha=0.01, beta=0.6, knorm=1.5), (1, 5, 3, 3)),
    "maxpool_full": (lambda: S.Pooling(D, kernel=(3, 3), stride=(2, 2), pool_type="max",
                                       pooling_convention="full"), (1, 2, 8, 8)),
    "maxpool_pad": (lambda: S.Pooling(D, kernel=(3, 3), stride=(2, 2), pad=(1, 1),
                                      pool_type="max"), (1, 2, 7, 7)),
    "avgpool_include_pad": (lambda: S.Pooling(D, kernel=(3, 3), pad=(1, 1), pool_type="avg"),
                            (1, 2, 5, 5)),
    "avgpool_exclude_pad": (lambda: S.Pooling(D, kernel=(2, 2), stride=(2, 2), pad=(1, 1),
                                              pool_type="avg", count_include_pad=False),
                            (1, 2, 6, 6)),
    "avgpool_1d": (lambda: S.Pooling(D, kernel=(2,), stride=(2,), pool_type="avg"), (2, 3, 8)),
    "maxpool_3d": (lambda: S.Pooling(D, kernel=(2, 2, 2), pool_type="max"), (1, 2, 4, 4, 4)),
    "global_max": (lambda: S.Pooling(D, kernel=(1, 1), global_pool=True, pool_type="max"),
                   (2, 3, 4, 5)),
    "global_avg": (lambda: S.Pooling(D, kernel=(1, 1), global_pool=True, pool_type="avg"),
                   (2, 3, 4, 5)),
    "flatten": (lambda: S.Flatten(D), (2, 3, 4)),
    "reshape_codes": (lambda: S.reshape(D, shape=(0, -1)), (2, 3, 4)),
    "reshape_special": (lambda: S.reshape(D, shape=(-3, -2)), (2, 3, 4, 5)),
    "reshape_reverse": (lambda: S.reshape(D, shape=(-1, 0), reverse=True), (2, 3, 4)),
    "transpose_default": (lambda: S.transpose(D), (2, 3, 4)),
    "transpose_axes": (lambda: S.transpose(D, axes=(0, 2, 1, 3)), (2, 3, 4, 5)),
    "expand_dims": (lambda: S.expand_dims(D, axis=-1), (2, 3)),
    "squeeze_axis": (lambda: S.squeeze(D, axis=1), (2, 1, 3)),
    "squeeze_all": (lambda: S.squeeze(D), (1, 3, 1)),
    "concat": (lambda: S.concat(D, D * 2, dim=1), (2, 3, 2)),
    "stack": (lambda: S.stack(D, D + 1, axis=1), (2, 3)),
    "split": (lambda: S.Group(list(S.split(D, num_outputs=2, axis=1))), (2, 4, 3)),
    "split_squeeze": (lambda: S.Group(list(S.split(D, num_outputs=3, axis=-1,
                                                   squeeze_axis=True))), (2, 4, 3)),
    "slice_axis": (lambda: S.slice_axis(D, axis=1, begin=1, end=None), (2, 4, 3)),
    "slice_steps": (lambda: S.slice(D, begin=(None, 3), end=(None, 0), step=(1, -2)),
                    (2, 5)),
    "tile": (lambda: S.tile(D, reps=(2, 1, 3)), (2, 3)),
    "broadcast_to": (lambda: S.broadcast_to(D, shape=(3, 2, 4)), (1, 2, 4)),
    "pad_constant": (lambda: S.pad(D, mode="constant", constant_value=1.5,
                                   pad_width=(0, 0, 0, 0, 1, 2, 2, 1)), (1, 2, 3, 3)),
    "pad_edge": (lambda: S.pad(D, mode="edge", pad_width=(0, 0, 0, 0, 1, 1, 2, 2)),
                 (1, 2, 3, 3)),
    "pad_reflect": (lambda: S.pad(D, mode="reflect", pad_width=(0, 0, 0, 0, 1, 1, 2, 2)),
                    (1, 2, 3, 4)),
    "upsampling": (lambda: S.UpSampling(D, scale=2, sample_type="nearest"), (1, 2, 3, 3)),
    "softmax_temperature": (lambda: S.softmax(D, axis=-1, temperature=2.0), (2, 3, 4)),
    "log_softmax_axis1": (lambda: S.log_softmax(D, axis=1), (2, 3, 4)),
    "softmax_act_channel": (lambda: S.SoftmaxActivation(D, mode="channel"), (2, 3, 4)),
    "softmax_act_instance": (lambda: S.SoftmaxActivation(D), (2, 3, 4)),
    "softmax_output_multi": (lambda: S.SoftmaxOutput(D, multi_output=True), (2, 3, 4)),
    "softmax_output_flat": (lambda: S.SoftmaxOutput(D), (2, 3, 2)),
    "logistic_output": (lambda: S.LogisticRegressionOutput(D), (2, 3)),
    "sum_axes_keep": (lambda: S.sum(D, axis=(0, 2), keepdims=True), (2, 3, 4)),
    "mean_exclude": (lambda: S.mean(D, axis=1, exclude=True), (2, 3, 4)),
    "max_all": (lambda: S.max(D), (2, 3)),
    "min_axis": (lambda: S.min(D, axis=-1), (2, 3)),
    "prod_axis": (lambda: S.prod(D, axis=0), (2, 3)),
    "dot_transpose": (lambda: S.dot(D, D, transpose_a=True), (3, 4)),
    "batch_dot": (lambda: S.batch_dot(D, D, transpose_b=True), (2, 3, 4)),
    "clip": (lambda: S.clip(D, a_min=-0.5, a_max=1.0), (2, 3)),
    "dropout": (lambda: S.Dropout(D, p=0.5), (2, 3)),
    "cast": (lambda: S.Cast(D, dtype="float64"), (2, 3)),
    "where": (lambda: S.where(D > 0, D, D * 3), (2, 3)),
    "add_n": (lambda: S.add_n(D, D * 2, D + 1), (2, 3)),
    "scalars": (lambda: ((1.5 - D) / 2 + 3) * 2 - 1, (2, 3)),
    "rdiv_pow": (lambda: 2 / (S.abs(D) + 1) + S.abs(D) ** 1.5 + 2 ** D, (2, 3)),
    "max_min_scalar": (lambda: S.maximum(S.minimum(D, 1.0), -1.0), (2, 3)),
    "compare_scalar": (lambda: (D > 0.5) + (D <= -0.5) + (D == D), (2, 3)),
    "broadcast_ops": (lambda: S.broadcast_maximum(S.broadcast_sub(D, S.sum(D, axis=1,
                                                                           keepdims=True)),
                                                  S.broadcast_div(D, D + 10)), (2, 3)),
    "broadcast_compare": (lambda: S.broadcast_greater(D, S.mean(D, axis=0, keepdims=True)),
                          (2, 3)),
    "unary_chain": (lambda: S.sigmoid(S.tanh(S.exp(D * 0.1))) + S.sqrt(S.abs(D)) +
                    S.log(S.abs(D) + 1) + S.floor(D) + S.ceil(D) + S.erf(D) + S.sin(D) +
                    S.cos(D) + S.sign(D) + S.square(D) + S.rsqrt(S.abs(D) + 1) +
                    S.reciprocal(D + 5) + S.negative(D) + S.softsign(D) +
                    S.log2(S.abs(D) + 1) + S.log10(S.abs(D) + 1) + S.log1p(S.abs(D)) +
                    S.expm1(D), (2, 3)),
    "activations": (lambda: S.Group([S.Activation(D, act_type=a) for a in
                                     ("relu", "sigmoid", "tanh", "softrelu",
                                      "softsign")]), (2, 3)),
    "leaky_kinds": (lambda: S.Group([S.LeakyReLU(D, act_type="leaky", slope=0.2),
                                     S.LeakyReLU(D, act_type="elu", slope=0.7),
                                     S.LeakyReLU(D, act_type="selu"),
                                     S.LeakyReLU(D, act_type="gelu")]), (2, 3)),
    "prelu": (lambda: S.LeakyReLU(D, act_type="prelu", name="prelu"), (2, 3, 4, 4)),
    # MXNet's "full" pooling adds windows that start in (or past) the padding
    "maxpool_full_extra": (lambda: S.Pooling(D, kernel=(3, 3), stride=(4, 4),
                                             pool_type="max", pooling_convention="full"),
                           (1, 2, 8, 8)),
    "avgpool_full_extra": (lambda: S.Pooling(D, kernel=(3, 2), stride=(4, 3), pad=(1, 1),
                                             pool_type="avg", pooling_convention="full"),
                           (1, 2, 8, 9)),
    "avgpool_full_exclude": (lambda: S.Pooling(D, kernel=(3, 3), stride=(2, 2), pad=(1, 1),
                                               pool_type="avg", count_include_pad=False,
                                               pooling_convention="full"), (1, 2, 6, 6)),
    "lppool_full": (lambda: S.Pooling(D, kernel=(2, 2), stride=(3, 3), pool_type="lp",
                                      p_value=2, pooling_convention="full"), (1, 2, 7, 7)),
    "global_lp": (lambda: S.Group([S.Pooling(D, kernel=(1, 1), global_pool=True,
                                             pool_type="lp", p_value=p) for p in (1, 2, 3)]),
                  (2, 3, 4, 5)),
    "lppool_signed": (lambda: S.Group([S.Pooling(D, kernel=(2, 2), stride=(2, 2), pad=(1, 1),
                                                 pool_type="lp", p_value=p,
                                                 pooling_convention="full")
                                       for p in (1, 3)]), (1, 2, 5, 5)),
    "adaptive_avg": (lambda: S.contrib.AdaptiveAvgPooling2D(D, output_size=(2, 3)),
                     (1, 2, 4, 6)),
    "bilinear_resize": (lambda: S.contrib.BilinearResize2D(D, height=7, width=5),
                        (1, 2, 4, 3)),
    "where_rows": (lambda: S.where(S.sum(D, axis=(1, 2)) > 0, D, D * 3), (4, 2, 3)),
    "dot_nd": (lambda: S.dot(D, S.reshape(D, shape=(4, 6)), transpose_a=False), (2, 3, 4)),
    "dot_nd_transpose": (lambda: S.dot(D, D, transpose_a=True), (2, 3, 2)),
    "gemm2": (lambda: S.linalg.gemm2(D, D, transpose_b=True, alpha=1.5), (2, 3, 4)),
    "norm": (lambda: S.Group([S.norm(D, ord=1, axis=(0, 2), keepdims=True),
                              S.norm(D, axis=1), S.norm(D)]), (2, 3, 4)),
    "argmax_min": (lambda: S.Group([S.argmax(D, axis=1), S.argmin(D, axis=-1, keepdims=True),
                                    S.argmax(D)]), (2, 3, 4)),
    "topk": (lambda: S.Group([S.topk(D, k=2, axis=1, ret_typ="both"),
                              S.topk(D, k=3, is_ascend=True), S.topk(D, k=2, ret_typ="value",
                                                                     axis=None)]), (2, 4, 3)),
    "sort": (lambda: S.Group([S.sort(D, axis=1), S.argsort(D, is_ascend=False)]), (3, 4)),
    "one_hot": (lambda: S.one_hot(S.floor(S.abs(D)), depth=4, on_value=2.0, off_value=-1.0),
                (2, 3)),
    "repeat": (lambda: S.Group([S.repeat(D, repeats=2, axis=1), S.repeat(D, repeats=3)]),
               (2, 3)),
    "take": (lambda: S.Group([S.take(D, S.floor(D * 3), axis=1, mode="clip"),
                              S.take(D, S.floor(D * 3), mode="wrap")]), (3, 4)),
    "gather_nd": (lambda: S.gather_nd(D, S.floor(S.abs(S.slice_axis(D, axis=0, begin=0,
                                                                    end=2)))), (2, 2)),
    "creation": (lambda: S.Group([D + S.zeros((2, 3)), D * S.ones((2, 3)), S.zeros_like(D),
                                  S.ones_like(D) + S.full((2, 3), 2.5)]), (2, 3)),
    "logical": (lambda: S.Group([S.logical_not(D > 0), S.broadcast_logical_and(D > 0, D < 1),
                                 S.broadcast_logical_or(D > 0, D < -1),
                                 S.broadcast_logical_xor(D > 0, D > 1),
                                 S.broadcast_not_equal(D, S.floor(D))]), (2, 3)),
    "swap_reverse": (lambda: S.Group([S.swapaxes(D, dim1=0, dim2=2),
                                      S.reverse(D, axis=(0, 2))]), (2, 3, 4)),
    "shape_size": (lambda: S.Group([S.shape_array(D), S.size_array(D)]), (2, 3)),
    "slice_reshape_like": (lambda: S.Group([S.slice_like(D, S.zeros((2, 2, 3))),
                                            S.reshape_like(D, S.zeros((6, 4)))]), (2, 3, 4)),
    "sequence_reverse": (lambda: S.SequenceReverse(D), (4, 2, 3)),
    "depth_space": (lambda: S.Group([S.depth_to_space(D, block_size=2),
                                     S.space_to_depth(S.depth_to_space(D, block_size=2),
                                                      block_size=2)]), (1, 8, 2, 3)),
    "arange": (lambda: S.broadcast_add(D, S.arange(0, 3) + S.arange(3, step=1)), (2, 3)),
    "arange_like": (lambda: S.contrib.arange_like(D, start=1, step=0.5, axis=1), (2, 3)),
    "split_v2": (lambda: S.split_v2(D, (1, 3), axis=1), (2, 5)),
    "crop": (lambda: S.Crop(D, h_w=(2, 3), offset=(1, 1)), (1, 2, 5, 5)),
    "div_sqrt_dim": (lambda: S.contrib.div_sqrt_dim(D), (2, 3, 4)),
    "selfatt": (lambda: S.Group([S.contrib.interleaved_matmul_selfatt_qk(D, heads=2),
                                 S.contrib.interleaved_matmul_selfatt_valatt(
                                     D, S.softmax(S.contrib.interleaved_matmul_selfatt_qk(
                                         D, heads=2)), heads=2)]), (3, 2, 12)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_operator_exports(case, tmp_path):
    build, shape = CASES[case]
    _check(build(), {"data": _x(*shape)}, tmp_path)


def test_embedding_takes_integer_like_indices(tmp_path):
    sym = S.Embedding(D, input_dim=7, output_dim=3)
    data = RNG.randint(0, 7, (2, 4)).astype(np.float32)
    _check(sym, {"data": data}, tmp_path)


def test_two_inputs_of_two_dtypes(tmp_path):
    a, b = S.var("a"), S.var("b")
    sym = S.broadcast_add(a, S.Cast(b, dtype="float32"))
    _check(sym, {"a": _x(2, 3), "b": np.arange(3, dtype=np.float64).reshape(1, 3)}, tmp_path)


@pytest.mark.parametrize("model", ["mobilenet0.25", "mobilenetv2_0.25", "squeezenet1.1",
                                   "mlp", "custom"])
def test_mxnet_exported_models_give_mxnets_outputs(model, tmp_path):
    prefix = os.path.join(MODELS, model)
    with open(os.path.join(MODELS, "manifest.json")) as f:
        shapes = json.load(f)[model]["input_shapes"]
    ref = np.load(prefix + "-io.npz")
    data = ref["input:data"]
    path = mx.onnx.export_model(prefix + "-symbol.json", prefix + "-0000.params",
                                [tuple(shapes["data"])], np.float32,
                                str(tmp_path / "m.onnx"))
    got = _run_onnx(path, {"data": data})
    # float32 rounding of a deep net, relative to the outputs' scale
    scale = float(np.abs(ref["output:0"]).max())
    np.testing.assert_allclose(got[0], ref["output:0"], rtol=1e-4, atol=2e-5 * scale)


def test_gluon_block_with_dynamic_batch(tmp_path):
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Conv2D(4, 3, padding=1), mx.gluon.nn.BatchNorm(),
            mx.gluon.nn.Activation("relu"), mx.gluon.nn.GlobalAvgPool2D(),
            mx.gluon.nn.Flatten(), mx.gluon.nn.Dense(3))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    net(mx.nd.zeros((1, 2, 6, 6)))
    net.export(str(tmp_path / "net"))
    path = mx.onnx.export_model(str(tmp_path / "net-symbol.json"),
                                str(tmp_path / "net-0000.params"), [(1, 2, 6, 6)],
                                onnx_file_path=str(tmp_path / "net.onnx"), dynamic=True,
                                dynamic_input_shapes=[(None, 2, 6, 6)])
    model = onnx.load(path)
    dims = model.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param and [d.dim_value for d in dims[1:]] == [2, 6, 6]
    x = _x(5, 2, 6, 6)
    got = _run_onnx(path, {"data": x})[0]
    np.testing.assert_allclose(got, net(mx.nd.array(x)).asnumpy(), rtol=1e-5, atol=1e-5)


def test_params_as_arg_and_aux_dicts_and_shape_inference(tmp_path):
    sym = S.BatchNorm(S.FullyConnected(D, num_hidden=3, name="fc"), name="bn")
    params = {k: mx.nd.array(v) for k, v in _params_for(sym, {"data": (2, 4)}).items()}
    arg = {k: v for k, v in params.items() if k in sym.list_arguments()}
    aux = {k: v for k, v in params.items() if k in sym.list_auxiliary_states()}
    path = mx.onnx.export_model(sym, [arg, aux], [(2, 4)], np.float32,
                                str(tmp_path / "m.onnx"), run_shape_inference=True)
    model = onnx.load(path)
    assert model.opset_import[0].version == 13
    assert [o.name for o in model.graph.output] == ["bn"]
    assert {i.name for i in model.graph.initializer} >= {"fc_weight", "bn_moving_var"}


def test_errors_name_the_node(tmp_path):
    sym = S.linalg.potrf(D, name="chol")
    with pytest.raises(MXNetError, match="potrf.*node chol"):
        mx.onnx.export_model(sym, {}, [(5, 5)], onnx_file_path=str(tmp_path / "m.onnx"))
    assert not (tmp_path / "m.onnx").exists()
    reshape = S.reshape(D, shape=(-3,), name="r")
    with pytest.raises(MXNetError, match="node r.*dynamic"):
        mx.onnx.export_model(reshape, {}, [(2, 5)], onnx_file_path=str(tmp_path / "m.onnx"),
                             dynamic=True)
    with pytest.raises(MXNetError, match="data inputs"):
        mx.onnx.export_model(S.relu(D), {}, [(2, 5), (3,)],
                             onnx_file_path=str(tmp_path / "m.onnx"))
    with pytest.raises(ValueError, match="files or objects"):
        mx.onnx.export_model(S.relu(D), 3, [(2, 5)], onnx_file_path=str(tmp_path / "m.onnx"))
    with pytest.raises(MXNetError, match="always"):
        mx.onnx.export_model(S.Dropout(D, mode="always"), {}, [(2, 5)],
                             onnx_file_path=str(tmp_path / "m.onnx"))


def test_operator_support_and_mxnet_paths():
    mx.install_mxnet_alias()
    import mxnet.onnx
    from mxnet.onnx.mx2onnx import get_operator_support
    ops = get_operator_support()
    assert {"Convolution", "BatchNorm", "FullyConnected", "Pooling"} <= set(ops)
    assert mxnet.onnx.export_model is mx.onnx.export_model
    assert get_operator_support(12) == []


def test_sequence_ops_with_lengths(tmp_path):
    x, lens, lens_t = S.var("x"), S.var("lens"), S.var("lens_t")
    sym = S.Group([S.SequenceReverse(x, lens, use_sequence_length=True),
                   S.SequenceMask(x, lens, use_sequence_length=True, value=-1.0),
                   S.SequenceMask(x, lens_t, use_sequence_length=True, axis=1)])
    _check(sym, {"x": _x(4, 3, 2), "lens": np.array([1, 4, 2], np.float32),
                 "lens_t": np.array([3, 1, 0, 2], np.float32)}, tmp_path)


def test_roi_layers(tmp_path):
    data, rois = S.var("data"), S.var("rois")
    boxes = np.array([[-1, 0, 0, 0, 0], [0, 1, 1, 6, 5], [1, 0.5, 2, 7, 7.5]], np.float32)
    sym = S.Group([S.ROIPooling(data, rois, pooled_size=(2, 2), spatial_scale=1.0),
                   S.contrib.ROIAlign(data, rois, pooled_size=(3, 2), spatial_scale=0.5,
                                      sample_ratio=2)])
    inputs = {"data": _x(2, 3, 8, 8), "rois": boxes}
    shapes = {k: v.shape for k, v in inputs.items()}
    ex = sym.bind(mx.cpu(), {k: mx.nd.array(v) for k, v in inputs.items()})
    want = [o.asnumpy() for o in ex.forward()]
    want[0][0] = 0  # a negative batch index: MXNet's max pooling of nothing, ONNX's 0s
    path = mx.onnx.export_model(sym, {}, [shapes["data"], shapes["rois"]], np.float32,
                                str(tmp_path / "m.onnx"))
    got = _run_onnx(path, inputs)
    got[0][0] = 0
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_random_draws_keep_shape_and_range(tmp_path):
    sym = S.Group([S.random.uniform(-2, 3, shape=(50, 4)) + S.zeros_like(D),
                   S.random.normal(1, 0.1, shape=(50, 4)),
                   S.random.uniform_like(D, low=5, high=6)])
    path = mx.onnx.export_model(sym, {}, [(50, 4)], np.float32, str(tmp_path / "m.onnx"))
    uni, normal, like = _run_onnx(path, {"data": _x(50, 4)})
    assert uni.shape == normal.shape == like.shape == (50, 4)
    assert -2 <= uni.min() and uni.max() < 3 and 5 <= like.min() and like.max() < 6
    assert abs(normal.mean() - 1) < 0.05
