"""Samples for ``Custom``: small Python operators registered with ``mx.operator.register``."""
import numpy as np

import gluonlite as mx

from ..harness import Sample

_rng = np.random.default_rng(17)


class _ScaledSquare(mx.operator.CustomOp):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], self.scale * in_data[0] * in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], 2 * self.scale * in_data[0] * out_grad[0])


@mx.operator.register("_harness_scaled_square")
class _ScaledSquareProp(mx.operator.CustomOpProp):
    def __init__(self, scale="1"):
        super().__init__()
        self.scale = float(scale)

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _ScaledSquare(self.scale)


class _MulSub(mx.operator.CustomOp):
    """Outputs ``a * b`` and ``a - b``; adds 1 to its aux state on each forward."""

    def forward(self, is_train, req, in_data, out_data, aux):
        a, b = in_data
        self.assign(out_data[0], req[0], a * b)
        self.assign(out_data[1], req[1], a - b)
        aux[0][:] += 1

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        a, b = in_data
        self.assign(in_grad[0], req[0], out_grad[0] * b + out_grad[1])
        self.assign(in_grad[1], req[1], out_grad[0] * a - out_grad[1])


@mx.operator.register("_harness_mulsub")
class _MulSubProp(mx.operator.CustomOpProp):
    def list_arguments(self):
        return ["lhs", "rhs"]

    def list_outputs(self):
        return ["prod", "diff"]

    def list_auxiliary_states(self):
        return ["count"]

    def infer_shape(self, in_shape):
        return [in_shape[0], in_shape[0]], [in_shape[0], in_shape[0]], [[1]]

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _MulSub()


class _L2Loss(mx.operator.CustomOp):
    """``(x - label)^2 / 2`` whose backward ignores the head gradient."""

    def forward(self, is_train, req, in_data, out_data, aux):
        d = in_data[0] - in_data[1]
        self.assign(out_data[0], req[0], d * d / 2)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], in_data[0] - in_data[1])
        self.assign(in_grad[1], req[1], 0)


@mx.operator.register("_harness_l2_loss")
class _L2LossProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=False)

    def list_arguments(self):
        return ["data", "label"]

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _L2Loss()


def _square_ref(x, scale="1", **_):
    return float(scale) * x * x


def _mulsub_ref(a, b, count, **_):
    return [a * b, a - b]


SAMPLES = {
    "Custom": [
        Sample([_rng.standard_normal((2, 3))],
               dict(op_type="_harness_scaled_square", scale="1.5"), ref=_square_ref,
               name="scaled_square"),
        Sample([_rng.standard_normal((3,)).astype(np.float32)],
               dict(op_type="_harness_scaled_square"), ref=_square_ref, grad=False,
               rtol=1e-6, name="float32"),
        Sample([_rng.standard_normal((2, 2)), _rng.standard_normal((2, 2)), np.zeros(1)],
               dict(op_type="_harness_mulsub"), ref=_mulsub_ref, name="two_in_two_out_aux"),
        Sample([_rng.standard_normal((4,)), _rng.standard_normal((4,))],
               dict(op_type="_harness_l2_loss"), ref=lambda x, y, **_: (x - y) ** 2 / 2,
               grad=[0], grad_ref=lambda x, y, **_: [x - y], name="need_top_grad_false"),
    ],
}
