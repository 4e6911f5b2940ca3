"""Focused checks of reductions, shape, join/split, sorting and ``_index``: errors,
partial shape inference, dtype rules and attribute strings (MXNet 1.9.1 behaviour)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd
from gluonlite.base import MXNetError
from gluonlite.ops.registry import get_op


def _x(*shape):
    return nd.array(np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape))


def _infer(name, shapes, **attrs):
    op = get_op(name)
    return op.infer_shape(op.parse_attrs(attrs), shapes)


@pytest.mark.parametrize("call,words", [
    (lambda: nd.sum(_x(2, 3), axis=2), ["sum", "axis 2", "(2, 3)"]),
    (lambda: nd.max(_x(2, 3), axis=(0, 0)), ["max", "duplicates"]),
    (lambda: nd.norm(_x(2, 3), ord=3), ["norm", "ord"]),
    (lambda: nd.argmax(_x(2, 3), axis=-3), ["argmax", "axis"]),
    (lambda: nd.Reshape(_x(10, 5, 4), shape=(3, -1)), ["Reshape", "(10, 5, 4)", "(3, -1)"]),
    (lambda: nd.expand_dims(_x(2, 3), axis=3), ["expand_dims", "(2, 3)"]),
    (lambda: nd.squeeze(_x(1, 3), axis=1), ["squeeze", "(1, 3)"]),
    (lambda: nd.transpose(_x(2, 3, 4), axes=(0, 1)), ["transpose", "(2, 3, 4)"]),
    (lambda: nd.SwapAxis(_x(2, 3), dim1=0, dim2=2), ["SwapAxis", "axis"]),
    (lambda: nd.broadcast_to(_x(2, 3), shape=(4, 3)), ["broadcast_to", "(2, 3)", "(4, 3)"]),
    (lambda: nd.broadcast_axis(_x(2, 3), axis=0, size=4), ["broadcast_axis", "(2, 3)"]),
    (lambda: nd.depth_to_space(_x(1, 3, 2, 2), block_size=2), ["depth_to_space", "(1, 3, 2, 2)"]),
    (lambda: nd.pad(_x(2, 3, 4), mode="constant", pad_width=(0, 0, 0, 0, 1, 1)),
     ["pad", "4-D or 5-D", "(2, 3, 4)"]),
    (lambda: nd.pad(_x(1, 1, 2, 2), mode="constant", pad_width=(1, 0, 0, 0, 1, 1, 1, 1)),
     ["pad", "first two axes"]),
    (lambda: nd.pad(_x(1, 1, 2, 2), mode="reflect", pad_width=(0, 0, 0, 0, 2, 0, 0, 0)),
     ["pad", "reflect"]),
    (lambda: nd.Crop(_x(2, 5, 6), num_args=1, h_w=(2, 3)), ["Crop", "4-D"]),
    (lambda: nd.Crop(_x(1, 1, 5, 6), num_args=1, h_w=(6, 3)), ["Crop", "(1, 1, 5, 6)"]),
    (lambda: nd.Concat(_x(2, 3), _x(3, 4), dim=1), ["Concat", "(2, 3)", "(3, 4)"]),
    (lambda: nd.split(_x(2, 6), num_outputs=4, axis=1), ["split", "(2, 6)"]),
    (lambda: nd.slice(_x(4, 5), begin=(1, 2, 3), end=(2, 3, 4)), ["slice", "(4, 5)"]),
    (lambda: nd.slice_axis(_x(4, 5), axis=1, begin=3, end=2), ["slice_axis", "(4, 5)"]),
    (lambda: nd.topk(_x(2, 2), k=5), ["topk", "k"]),
    (lambda: nd.tile(_x(3), reps=(0,)), ["tile", "reps"]),
])
def test_errors_name_operator(call, words):
    with pytest.raises(MXNetError) as info:
        call()
    for w in words:
        assert w in str(info.value), f"{w!r} not in {info.value}"


def test_full_reductions_give_shape_1():
    x = _x(2, 3)
    for fn in (nd.sum, nd.mean, nd.max, nd.min, nd.prod, nd.nansum, nd.nanprod, nd.norm,
               nd.argmax, nd.argmin):
        assert fn(x).shape == (1,)
    assert nd.sum(x, axis=(), exclude=True).shape == (1,)
    assert nd.sum(x, keepdims=True).shape == (1, 1)
    assert nd.argmax(x, keepdims=True).shape == (1, 1)


def test_dtype_rules():
    xi = nd.array(np.array([[1, 2], [3, 6]]), dtype="int32")
    assert nd.sum(xi).dtype == np.int32
    np.testing.assert_array_equal(nd.mean(xi, axis=1).asnumpy(), [1, 4])  # truncated
    assert nd.argmax(xi, axis=1).dtype == np.int32  # argmax keeps the input dtype
    assert nd.argmax(_x(2, 3).astype("float64"), axis=1).dtype == np.float64
    assert nd.shape_array(_x(2, 3)).dtype == np.int64
    assert nd.size_array(_x(2, 3)).asnumpy().tolist() == [6]
    assert nd.topk(_x(2, 3), k=1).dtype == np.float32
    v, i = nd.topk(_x(2, 3).astype("float64"), k=1, ret_typ="both", dtype="int64")
    assert v.dtype == np.float64 and i.dtype == np.int64
    assert nd.topk(_x(2, 3).astype("float64"), k=1, ret_typ="mask").dtype == np.float64
    assert nd.argsort(_x(2, 3).astype("float64")).dtype == np.float32
    assert nd.norm(_x(2, 3), out_dtype="float64").dtype == np.float64


def test_hidden_outputs_like_mxnet():
    for name, attrs, n, names in [("topk", {"ret_typ": "value"}, 1, ("output0", "output1")),
                                  ("topk", {"ret_typ": "indices"}, 1, ("output",)),
                                  ("topk", {"ret_typ": "both"}, 2, ("output0", "output1")),
                                  ("sort", {}, 1, ("output0", "output1")),
                                  ("argsort", {}, 1, ("output",))]:
        op = get_op(name)
        a = op.parse_attrs(attrs)
        assert op.num_visible_outputs(a) == n
        assert op.output_names(a) == names


def test_partial_shape_inference():
    ins, outs = _infer("Concat", [(2, 3), None, (2, 4)], num_args=3, dim=1)
    assert ins == [(2, 3), (2, 0), (2, 4)] and outs == [(2, 0)]
    ins, outs = _infer("Concat", [(0, 3), (2, 1)], num_args=2, dim=1)
    assert ins == [(2, 3), (2, 1)] and outs == [(2, 4)]
    # MXNet 1.9.1's Flatten needs a complete input: (0, 4, 4, 4) gives an unknown output
    assert _infer("Flatten", [(0, 3, 4)])[1] == [None]
    assert _infer("Flatten", [(5, 0, 4)])[1] == [None]
    assert _infer("Flatten", [(5, 3, 4)])[1] == [(5, 12)]
    assert _infer("Reshape", [(0, 3, 4)], shape=(0, -1))[1] == [(0, 0)]  # as MXNet
    assert _infer("Reshape", [(0, 3, 4)], shape=(-1, 12))[1] == [(0, 12)]
    assert _infer("stack", [None, (2, 3)], num_args=2)[0] == [(2, 3), (2, 3)]
    assert _infer("sum", [None])[1] == [None]
    assert _infer("SliceChannel", [(4, 6)], num_outputs=3)[1] == [(4, 2)] * 3


def test_attribute_strings_parse():
    x = _x(2, 3, 4)
    assert nd.sum(x, axis="(0, 2)", keepdims="True").shape == (1, 3, 1)
    assert nd.slice(x, begin="(None, 1)", end="(None, 3)").shape == (2, 2, 4)
    assert nd.topk(x, axis="None", k="3").shape == (3,)
    assert nd.Reshape(x, shape="(0, -1)", reverse="False").shape == (2, 12)


def test_aliases():
    for alias, name in [("sum_axis", "sum"), ("max_axis", "max"), ("min_axis", "min"),
                        ("reshape", "Reshape"), ("flatten", "Flatten"), ("swapaxes", "SwapAxis"),
                        ("broadcast_axes", "broadcast_axis"), ("flip", "reverse"),
                        ("pad", "Pad"), ("concat", "Concat"), ("split", "SliceChannel"),
                        ("crop", "slice")]:
        assert get_op(alias) is get_op(name)


def test_max_gradient_goes_to_all_ties():
    x = nd.array([[1.0, 3.0, 3.0], [2.0, 2.0, 1.0]])
    x.attach_grad()
    with autograd.record():
        y = nd.max(x, axis=1)
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [[0, 1, 1], [1, 1, 0]])


def test_sort_is_stable_and_has_no_higher_order():
    x = nd.array([[1, 3, 3, 1, 1]])
    np.testing.assert_array_equal(nd.argsort(x, is_ascend=False).asnumpy(), [[1, 2, 0, 3, 4]])
    np.testing.assert_array_equal(nd.topk(x, k=2, is_ascend=True).asnumpy(), [[0, 3]])
    assert get_op("sort").backward_graph is None
    assert get_op("topk").backward_graph is None


def test_recorded_indexing_uses_index_op():
    x = nd.array(np.arange(12, dtype=np.float32).reshape(3, 4))
    x.attach_grad()
    with autograd.record():
        y = x[nd.array([0, 0, 2])]
        z = x[1, 2]
        w = x[:, ::-2]
    assert y.shape == (3, 4) and z.shape == (1,) and w.shape == (3, 2)
    autograd.backward([y, z, w])
    expect = np.zeros((3, 4))
    expect[0] += 2
    expect[2] += 1
    expect[1, 2] += 1
    expect[:, ::-2] += 1
    np.testing.assert_array_equal(x.grad.asnumpy(), expect)


def test_outputs_are_copies():
    x = _x(2, 3)
    for y in (nd.Reshape(x, shape=(3, 2)), nd.Flatten(x), nd.transpose(nd.transpose(x)),
              nd.squeeze(x), nd.expand_dims(x, axis=0), nd.SwapAxis(x)):
        y[:] = -1
    assert float(x.asnumpy().min()) == 0.0


def test_higher_order_through_linear_ops():
    x = nd.array(np.arange(6.0).reshape(2, 3) + 1)
    x.attach_grad()
    with autograd.record():
        b = nd.broadcast_to(nd.reshape(x, shape=(2, 1, 3)), shape=(2, 2, 3))
        y = nd.sum(nd.transpose(b) ** 2, axis=1)
        y = nd.mean(nd.flip(nd.SwapAxis(y, dim1=0, dim2=1), axis=0))
        dx = autograd.grad(y, x, create_graph=True)[0]
    np.testing.assert_allclose(dx.asnumpy(), 4 * x.asnumpy() / 6, rtol=1e-6)
    dx.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), np.full((2, 3), 4 / 6), rtol=1e-6)


@pytest.mark.parametrize("codes, expected", [
    # shapes MXNet 1.9.1 gives for an input of shape (6, 4, 2) with reverse=True: it
    # reverses the raw code list, so a -4 group reads right to left
    ((-1, 2, -4, -1), (2, 2, 12)),
    ((-2, -1, 2, -4), (6, 4, 1, 2)),
    ((3, 2, -4, -3), (3, 2, 8)),
    ((1, -1, -4, -3), (1, 6, 8)),
])
def test_reshape_reverse_with_split_code(codes, expected):
    assert nd.Reshape(_x(6, 4, 2), shape=codes, reverse=True).shape == expected


def test_reshape_reverse_split_at_front_is_an_error_as_in_mxnet():
    with pytest.raises(MXNetError, match="Reshape"):
        nd.Reshape(_x(6, 4, 2), shape=(-4, 2, 3, 0), reverse=True)


def test_reshape_like_constrains_only_the_lhs_dtype_when_hybridized():
    # GluonNLP's BERT decoder reshapes float scores like int32 positions
    x, y = mx.sym.var("x"), mx.sym.var("y")
    args, outs, _ = mx.sym.reshape_like(x, y).infer_type(x="float32", y="int32")
    assert args == [np.float32, np.int32] and outs == [np.float32]

    class Net(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, a, b):
            return F.reshape_like(a, b) * 2

    net = Net()
    net.hybridize()
    out = net(mx.nd.ones((2, 3)), mx.nd.ones((3, 2), dtype="int32"))
    assert out.dtype == np.float32 and out.shape == (3, 2)
    np.testing.assert_array_equal(out.asnumpy(), np.full((3, 2), 2.0))
