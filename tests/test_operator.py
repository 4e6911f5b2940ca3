"""Custom Python operators (``mx.operator``): ``CustomOp``, ``CustomOpProp``, ``register``
and the ``Custom`` registry operator, imperative and through the registry API the graph
engine uses.  Expected behaviour was read off MXNet 1.9.1 (see the report of issue #3)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd
from gluonlite.base import MXNetError
from gluonlite.ops.registry import OpContext, get_op

LOG: list = []


# -- operators used by the tests -------------------------------------------------------
class _ScaledSquare(mx.operator.CustomOp):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale
        LOG.append("op_init")

    def forward(self, is_train, req, in_data, out_data, aux):
        LOG.append(("forward", is_train, list(req), autograd.is_recording(),
                    autograd.is_training(), type(in_data[0]).__name__, in_data[0].context))
        self.assign(out_data[0], req[0], in_data[0] * in_data[0] * self.scale)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        LOG.append(("backward", list(req), autograd.is_recording()))
        self.assign(in_grad[0], req[0], 2 * self.scale * in_data[0] * out_grad[0])


@mx.operator.register("t_scaled_square")
class _ScaledSquareProp(mx.operator.CustomOpProp):
    def __init__(self, scale="1.0", **extra):
        LOG.append(("prop_init", scale, extra))
        super().__init__(need_top_grad=True)
        self.scale = float(scale)

    def create_operator(self, ctx, in_shapes, in_dtypes):
        LOG.append(("create", ctx, in_shapes, in_dtypes))
        return _ScaledSquare(self.scale)


class _MulAdd(mx.operator.CustomOp):
    """Two inputs, two outputs (a*b, a+b), one aux state counting forward calls."""

    def forward(self, is_train, req, in_data, out_data, aux):
        a, b = in_data
        self.assign(out_data[0], req[0], a * b)
        self.assign(out_data[1], req[1], a + b)
        aux[0][:] = aux[0] + 1

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        a, b = in_data
        LOG.append(("muladd_backward", list(req), len(out_grad), len(in_grad), len(aux)))
        self.assign(in_grad[0], req[0], out_grad[0] * b + out_grad[1])
        self.assign(in_grad[1], req[1], out_grad[0] * a + out_grad[1])


@mx.operator.register("t_muladd")
class _MulAddProp(mx.operator.CustomOpProp):
    def list_arguments(self):
        return ["lhs", "rhs"]

    def list_outputs(self):
        return ["prod", "sum"]

    def list_auxiliary_states(self):
        return ["count"]

    def infer_shape(self, in_shape):
        return [in_shape[0], in_shape[0]], [in_shape[0], in_shape[0]], [[1]]

    def create_operator(self, ctx, in_shapes, in_dtypes):
        LOG.append(("create_muladd", in_shapes, in_dtypes))
        return _MulAdd()


class _SoftmaxLoss(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        e = np.exp(x - x.max(axis=1, keepdims=True))
        self.assign(out_data[0], req[0], nd.array(e / e.sum(axis=1, keepdims=True),
                                                  dtype=x.dtype))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        y = out_data[0]
        label = in_data[1]
        self.assign(in_grad[0], req[0], y - nd.one_hot(label, y.shape[1], dtype=y.dtype))
        self.assign(in_grad[1], req[1], 0)


@mx.operator.register("t_softmax_loss")
class _SoftmaxLossProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=False)

    def list_arguments(self):
        return ["data", "label"]

    def infer_shape(self, in_shape):
        return [in_shape[0], [in_shape[0][0]]], [in_shape[0]], []

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _SoftmaxLoss()


class _Stateful(mx.operator.CustomOp):
    """Keeps its input on ``self`` between forward and backward (a per-call state)."""

    def forward(self, is_train, req, in_data, out_data, aux):
        self.saved = in_data[0].copy()
        self.assign(out_data[0], req[0], in_data[0] * 3)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], self.saved * out_grad[0])  # deliberately "wrong"


@mx.operator.register("t_stateful")
class _StatefulProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _Stateful()


class _Linear(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], nd.dot(in_data[0], in_data[1], transpose_b=True))


@mx.operator.register("t_linear")
class _LinearProp(mx.operator.CustomOpProp):
    """Weight shape follows from the data shape and ``num_hidden`` (deferred-init style)."""

    def __init__(self, num_hidden):
        super().__init__()
        self.num_hidden = int(num_hidden)

    def list_arguments(self):
        return ["data", "weight"]

    def infer_shape(self, in_shape):
        data = in_shape[0]
        weight = [self.num_hidden, data[1]]
        return [data, weight], [[data[0], self.num_hidden]], []

    def infer_type(self, in_type):
        return [in_type[0], in_type[0]], [in_type[0]], []

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _Linear()


def _numeric_grad(f, arrays, index, heads, eps=1e-6):
    """Central differences of ``sum(f(*arrays) * heads)`` w.r.t. ``arrays[index]`` (float64)."""
    base = [a.astype(np.float64) for a in arrays]
    x = base[index]
    grad = np.zeros_like(x)
    flat, gflat = x.reshape(-1), grad.reshape(-1)
    for j in range(flat.size):
        orig = flat[j]
        vals = []
        for step in (eps, -eps):
            flat[j] = orig + step
            outs = f(*[nd.array(b, dtype=np.float64) for b in base])
            outs = outs if isinstance(outs, (list, tuple)) else [outs]
            vals.append(sum(float((o.asnumpy() * h).sum()) for o, h in zip(outs, heads)))
        flat[j] = orig
        gflat[j] = (vals[0] - vals[1]) / (2 * eps)
    return grad


@pytest.fixture(autouse=True)
def _clear_log():
    LOG.clear()
    yield
    LOG.clear()


# -- imperative use ----------------------------------------------------------------------
def test_forward_kwargs_reach_prop_as_strings():
    x = nd.array([1.0, -2.0, 3.0])
    y = nd.Custom(x, op_type="t_scaled_square", scale=3, flag=True, shape=(1, 2), none=None)
    np.testing.assert_allclose(y.asnumpy(), 3 * x.asnumpy() ** 2)
    assert LOG[0] == ("prop_init", "3", {"flag": "True", "shape": "(1, 2)", "none": "None"})
    assert y.dtype == np.float32 and y.shape == (3,)


def test_prop_and_operator_created_per_call_with_mxnet_arguments():
    x = nd.array(np.arange(6).reshape(2, 3), dtype="float64")
    for _ in range(2):
        nd.Custom(x, op_type="t_scaled_square", scale=2)
    kinds = [e if isinstance(e, str) else e[0] for e in LOG]
    assert kinds == ["prop_init", "create", "op_init", "forward"] * 2
    create = LOG[1]
    # MXNet passes shapes as lists of lists and dtypes as its type codes (float64 = 1)
    assert create == ("create", mx.cpu(), [[2, 3]], [1])
    xi = nd.array([1, 2], dtype="int32")
    LOG.clear()
    np.testing.assert_array_equal(nd.Custom(xi, op_type="t_scaled_square").asnumpy(), [1, 4])
    assert LOG[1][3] == [4]


def test_forward_sees_ndarrays_with_recording_paused():
    x = nd.array([1.0, 2.0])
    nd.Custom(x, op_type="t_scaled_square")
    assert LOG[-1] == ("forward", 0, ["write"], False, False, "NDArray", mx.cpu())
    x.attach_grad()
    LOG.clear()
    with autograd.record():
        y = nd.Custom(x, op_type="t_scaled_square")
    assert LOG[-1] == ("forward", 1, ["write"], False, True, "NDArray", mx.cpu())
    with autograd.record(train_mode=False):
        nd.Custom(x, op_type="t_scaled_square")
    assert LOG[-1][1:5] == (0, ["write"], False, False)
    y.backward()
    assert ("backward", ["write"], False) in LOG


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((2, 3))
    heads = [rng.uniform(-1, 1, (2, 3))]
    x = nd.array(xv, dtype="float64")
    x.attach_grad()
    with autograd.record():
        y = nd.Custom(x, op_type="t_scaled_square", scale=1.5)
    y.backward(nd.array(heads[0], dtype="float64"))
    num = _numeric_grad(lambda a: nd.Custom(a, op_type="t_scaled_square", scale=1.5),
                        [xv], 0, heads)
    np.testing.assert_allclose(x.grad.asnumpy(), num, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(num, 2 * 1.5 * xv * heads[0], rtol=1e-6)


def test_composes_with_other_recorded_ops_and_grad_add():
    x = nd.array([1.0, 2.0, 3.0])
    x.attach_grad(grad_req="add")
    for _ in range(2):
        with autograd.record():
            z = (nd.Custom(x * 2, op_type="t_scaled_square") + x).sum()
        z.backward()
    # d/dx sum((2x)^2 + x) = 8x + 1, accumulated twice
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * (8 * x.asnumpy() + 1))


def test_two_inputs_two_outputs_and_aux_state():
    rng = np.random.default_rng(1)
    av, bv = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    heads = [rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (2, 3))]
    a, b = nd.array(av, dtype="float64"), nd.array(bv, dtype="float64")
    count = nd.zeros((1,), dtype="float64")
    a.attach_grad()
    b.attach_grad()
    with autograd.record():
        p, s = nd.Custom(a, b, count, op_type="t_muladd")
    np.testing.assert_allclose(p.asnumpy(), av * bv)
    np.testing.assert_allclose(s.asnumpy(), av + bv)
    assert count.asnumpy()[0] == 1  # the aux state was updated in place
    assert LOG[0] == ("create_muladd", [[2, 3], [2, 3], [1]], [1, 1, 1])
    autograd.backward([p, s], [nd.array(h, dtype="float64") for h in heads])
    assert ("muladd_backward", ["write", "write"], 2, 2, 1) in LOG

    def f(x, y):
        return nd.Custom(x, y, nd.zeros((1,), dtype="float64"), op_type="t_muladd")
    np.testing.assert_allclose(a.grad.asnumpy(), _numeric_grad(f, [av, bv], 0, heads),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(b.grad.asnumpy(), _numeric_grad(f, [av, bv], 1, heads),
                               rtol=1e-6, atol=1e-8)


def test_need_top_grad_false_loss_ignores_head_gradient():
    x = nd.array([[1.0, 2.0, 3.0], [0.0, 0.0, 1.0]])
    label = nd.array([0, 2])
    x.attach_grad()
    with autograd.record():
        y = nd.Custom(x, label, op_type="t_softmax_loss")
    y.backward(nd.ones_like(y) * 5)
    e = np.exp(x.asnumpy() - x.asnumpy().max(axis=1, keepdims=True))
    sm = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(y.asnumpy(), sm, rtol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), sm - np.eye(3)[[0, 2]], rtol=1e-5, atol=1e-7)
    # MXNet 1.9.1 prints these for a prop with need_top_grad False / True
    assert _SoftmaxLossProp().declare_backward_dependency([10], [20, 21], [30]) == [20, 21, 30]
    assert mx.operator.CustomOpProp().declare_backward_dependency([10], [20], [30]) == \
        [10, 20, 30]


def test_each_call_has_its_own_operator_instance():
    x1, x2 = nd.array([1.0, 2.0]), nd.array([5.0, 7.0])
    x1.attach_grad()
    x2.attach_grad()
    with autograd.record():
        y1 = nd.Custom(x1, op_type="t_stateful")
        y2 = nd.Custom(x2, op_type="t_stateful")
    autograd.backward([y1, y2])
    np.testing.assert_allclose(x1.grad.asnumpy(), [1.0, 2.0])
    np.testing.assert_allclose(x2.grad.asnumpy(), [5.0, 7.0])


def test_out_argument():
    x = nd.array([1.0, 2.0])
    out = nd.zeros((2,))
    res = nd.Custom(x, op_type="t_scaled_square", scale=2, out=out)
    assert res is out
    np.testing.assert_allclose(out.asnumpy(), [2.0, 8.0])


# -- the registry operator (what symbols and the engine use) ------------------------------
def test_registry_structure_comes_from_the_prop():
    op = get_op("Custom")
    attrs = op.parse_attrs({"op_type": "t_muladd"})
    assert op.input_names(attrs) == ("lhs", "rhs", "count")
    assert op.aux_indices(attrs) == (2,)
    assert op.num_outputs(attrs) == 2
    assert op.output_names(attrs) == ("prod", "sum")
    assert attrs.to_strings() == {"op_type": "t_muladd"}
    attrs = op.parse_attrs({"op_type": "t_scaled_square", "scale": 2.5})
    assert op.input_names(attrs) == ("data",)
    assert op.output_names(attrs) == ("output",)
    assert attrs.to_strings() == {"op_type": "t_scaled_square", "scale": "2.5"}
    assert "state" not in attrs.as_dict()


def test_registry_shape_and_type_inference():
    op = get_op("Custom")
    attrs = op.parse_attrs({"op_type": "t_linear", "num_hidden": "4"})
    ins, outs = op.infer_shape(attrs, [(5, 3), None])
    assert ins == [(5, 3), (4, 3)] and outs == [(5, 4)]
    # unknown input: nothing to infer yet, no error (MXNet's infer_shape_partial)
    ins, outs = op.infer_shape(attrs, [None, None])
    assert ins == [None, None] and outs == [None]
    ins, outs = op.infer_type(attrs, [np.dtype("float64"), None])
    assert ins == [np.float64, np.float64] and outs == [np.float64]
    ins, outs = op.infer_type(attrs, [None, None])
    assert outs == [None]
    m = op.parse_attrs({"op_type": "t_muladd"})
    ins, outs = op.infer_shape(m, [(2, 3), None, None])
    assert ins == [(2, 3), (2, 3), (1,)] and outs == [(2, 3), (2, 3)]
    ins, outs = op.infer_type(m, [np.dtype("float16"), None, None])
    # the default infer_type leaves the second argument unknown, as in MXNet
    assert ins == [np.float16, None, np.float16] and outs == [np.float16] * 2


def test_registry_forward_backward_like_the_engine():
    """A graph node keeps its attributes: forward into given buffers, then backward
    of an earlier call still runs on that call's operator instance (the call's saved
    state, ``OpDef.saved_state``)."""
    op = get_op("Custom")
    assert op.saved_state
    attrs = op.parse_attrs({"op_type": "t_stateful"})
    oc = OpContext(np, True, mx.cpu())
    x1, x2 = np.array([1.0, 2.0]), np.array([4.0, 8.0])
    buf1, buf2 = np.empty(2), np.empty(2)
    out1, state1 = op.forward(oc, attrs, [x1], [buf1], keep_state=True)
    out2, state2 = op.forward(oc, attrs, [x2], [buf2], keep_state=True)
    assert out1[0] is buf1 and out2[0] is buf2
    np.testing.assert_allclose(buf1, 3 * x1)
    g1 = op.backward(oc, attrs, [x1], out1, [np.ones(2)], state=state1)
    g2 = op.backward(oc, attrs, [x2], out2, [np.ones(2)], state=state2)
    np.testing.assert_allclose(g1[0], x1)
    np.testing.assert_allclose(g2[0], x2)
    m = op.parse_attrs({"op_type": "t_muladd"})
    a, b, c = np.ones((2, 2)), np.full((2, 2), 2.0), np.zeros(1)
    outs = op.forward(oc, m, [a, b, c], None)
    grads = op.backward(oc, m, [a, b, c], outs, [np.ones((2, 2)), np.zeros((2, 2))])
    assert grads[2] is None  # no gradient for the aux state
    np.testing.assert_allclose(grads[0], b)


def test_graph_node_finds_aux_states_through_the_prop():
    from gluonlite.symbol import graph
    a, b, c = (graph.variable_node(n) for n in ("c_lhs", "c_rhs", "c_count"))
    node = graph.op_node("Custom", "c", [(a, 0), (b, 0), (c, 0)], {"op_type": "t_muladd"})
    args, auxs = graph.list_variables([(node, 0), (node, 1)])
    assert [n.name for n in args] == ["c_lhs", "c_rhs"]
    assert [n.name for n in auxs] == ["c_count"]
    assert node.output_names() == ("c_prod", "c_sum")
    with pytest.raises(MXNetError, match="expected 3 input"):
        graph.op_node("Custom", "d", [(a, 0)], {"op_type": "t_muladd"})


def test_attrs_copy_and_pickle_make_a_new_prop():
    import copy
    import pickle
    op = get_op("Custom")
    attrs = op.parse_attrs({"op_type": "t_scaled_square", "scale": "2"})
    x = np.array([1.0, 3.0])
    op.forward(OpContext(np, False, mx.cpu()), attrs, [x], None)
    for clone in (copy.copy(attrs), copy.deepcopy(attrs), pickle.loads(pickle.dumps(attrs))):
        assert clone is not attrs and clone.state.prop is not attrs.state.prop
        assert clone.to_strings() == {"op_type": "t_scaled_square", "scale": "2"}
        out = op.forward(OpContext(np, False, mx.cpu()), clone, [x], None)
        np.testing.assert_allclose(out[0], 2 * x ** 2)


# -- the base classes -----------------------------------------------------------------------
def test_base_class_defaults_match_mxnet():
    p = mx.operator.CustomOpProp(need_top_grad=False)
    assert p.need_top_grad_ is False
    assert (p.list_arguments(), p.list_outputs(), p.list_auxiliary_states()) == \
        (["data"], ["output"], [])
    assert p.infer_shape([[2, 3], [4]]) == ([[2, 3], [4]], ([2, 3],), ())
    assert p.infer_type([np.float32, np.float64]) == \
        ([np.float32, np.float64], [np.float32], [])
    assert p.infer_storage_type(["default", "default"]) == \
        (["default", "default"], ["default"], [])
    assert p.infer_storage_type_backward(["default"], ["default"] * 2, ["default"],
                                         ["default"] * 2, []) == \
        (["default"], ["default", "default"], ["default"], ["default", "default"], [])
    assert type(p.create_operator(mx.cpu(), [[1]], [0])) is mx.operator.CustomOp


def test_assign_requests():
    op = mx.operator.CustomOp()
    a = nd.zeros((2,))
    op.assign(a, "add", nd.ones((2,)))
    op.assign(a, "add", nd.ones((2,)))
    np.testing.assert_allclose(a.asnumpy(), [2, 2])
    op.assign(a, "null", nd.ones((2,)) * 7)
    np.testing.assert_allclose(a.asnumpy(), [2, 2])
    op.assign(a, "inplace", nd.ones((2,)) * 3)
    np.testing.assert_allclose(a.asnumpy(), [3, 3])
    op.assign(a, "write", nd.ones((2,)) * 4)
    np.testing.assert_allclose(a.asnumpy(), [4, 4])


def test_register_returns_class_and_later_registration_wins():
    class A(mx.operator.CustomOpProp):
        pass

    class B(mx.operator.CustomOpProp):
        def list_outputs(self):
            return ["first", "second"]

    assert mx.operator.register("t_rereg")(A) is A
    op = get_op("Custom")
    assert op.num_outputs(op.parse_attrs({"op_type": "t_rereg"})) == 1
    mx.operator.register("t_rereg")(B)
    assert op.num_outputs(op.parse_attrs({"op_type": "t_rereg"})) == 2
    assert "Custom" in mx.operator.get_all_registered_operators()


# -- errors ------------------------------------------------------------------------------------
class _Boom(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        raise ValueError("boom")


@mx.operator.register("t_boom")
class _BoomProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _Boom()


@mx.operator.register("t_bad_shape")
class _BadShapeProp(mx.operator.CustomOpProp):
    def infer_shape(self, in_shape):
        return in_shape, [], []


@mx.operator.register("t_missing_aux_shape")
class _MissingAuxShapeProp(mx.operator.CustomOpProp):
    def list_auxiliary_states(self):
        return ["state"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]]


def test_errors_name_the_custom_operator():
    x = nd.ones((2,))
    with pytest.raises(MXNetError, match="Cannot find custom operator t_nope"):
        nd.Custom(x, op_type="t_nope")
    with pytest.raises(MXNetError, match="op_type"):
        nd.Custom(x)
    with pytest.raises(MXNetError, match=r"expected 1 input"):
        nd.Custom(x, x, op_type="t_scaled_square")
    with pytest.raises(MXNetError, match=r"t_bad_shape.*0 output entries, expected 1"):
        nd.Custom(x, op_type="t_bad_shape")
    with pytest.raises(MXNetError, match=r"t_missing_aux_shape.*0 auxiliary entries"):
        nd.Custom(x, x, op_type="t_missing_aux_shape")
    with pytest.raises(MXNetError, match=r"t_boom.*forward.*boom"):
        nd.Custom(x, op_type="t_boom")
    with pytest.raises(MXNetError, match=r"t_linear.*bogus.*unexpected"):
        get_op("Custom").parse_attrs({"op_type": "t_linear", "bogus": "1"})
    with pytest.raises(MXNetError, match=r"t_linear.*weight.*\(4, 3\)"):
        nd.Custom(nd.ones((5, 3)), nd.ones((4, 2)), op_type="t_linear", num_hidden=4)


# -- GPU -----------------------------------------------------------------------------------------
@pytest.mark.gpu
def test_gpu_forward_backward():
    ctx = mx.gpu(0)
    xv = np.array([1.0, -2.0, 3.0], dtype=np.float32)
    x = nd.array(xv, ctx=ctx)
    x.attach_grad()
    with autograd.record():
        y = nd.Custom(x, op_type="t_scaled_square", scale=2)
    y.backward()
    assert y.context == ctx and x.grad.context == ctx
    np.testing.assert_allclose(y.asnumpy(), 2 * xv ** 2, rtol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), 4 * xv, rtol=1e-6)
    create = next(e for e in LOG if isinstance(e, tuple) and e[0] == "create")
    assert create[1] == ctx
    fwd = next(e for e in LOG if isinstance(e, tuple) and e[0] == "forward")
    assert fwd[-1] == ctx
