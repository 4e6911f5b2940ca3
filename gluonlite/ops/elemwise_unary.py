"""Elementwise unary math operators (``relu``, ``exp``, ``sqrt``, ...).

Each is one line of :data:`_UNARY`: forward on ``xp``, the derivative as a
function of (x, y), and CUDA expressions of both for GPU fusion.
"""
from __future__ import annotations

from .common import put, same_shape_infer
from .registry import OpDef, register


def _unary(name, fwd, dfdx, cuda, cuda_grad, aliases=(), uses=("inputs", "outputs"),
           differentiable=True, doc=""):
    """Register one elementwise unary operator.

    ``fwd(xp, x) -> y``; ``dfdx(xp, x, y) -> dy/dx`` (or ``None`` for no gradient).
    ``cuda`` is the CUDA C expression of ``y`` in terms of ``x``; ``cuda_grad`` that
    of ``dy/dx`` in terms of ``x``, ``y``.
    """
    def forward(oc, attrs, inputs, out):
        return [put(out, 0, fwd(oc.xp, inputs[0]))]

    def backward(oc, attrs, inputs, outputs, out_grads):
        x = inputs[0] if inputs is not None else None
        y = outputs[0] if outputs is not None else None
        return [out_grads[0] * dfdx(oc.xp, x, y)]

    register(OpDef(name, forward, backward=backward if differentiable else None,
                   infer_shape=same_shape_infer(name), aliases=aliases,
                   cuda=cuda, cuda_grad=(cuda_grad,) if cuda_grad else None,
                   backward_uses=uses, doc=doc or f"Elementwise ``{name}``."))


_unary("relu", lambda xp, x: xp.maximum(x, 0), lambda xp, x, y: (y > 0).astype(y.dtype),
       "y = x > 0 ? x : 0", "y > 0 ? 1 : 0", uses=("outputs",))
_unary("sigmoid", lambda xp, x: 1 / (1 + xp.exp(-x)), lambda xp, x, y: y * (1 - y),
       "y = 1 / (1 + exp(-x))", "y * (1 - y)", uses=("outputs",))
_unary("exp", lambda xp, x: xp.exp(x), lambda xp, x, y: y, "y = exp(x)", "y",
       uses=("outputs",))
_unary("log", lambda xp, x: xp.log(x), lambda xp, x, y: 1 / x, "y = log(x)", "1 / x",
       uses=("inputs",))
_unary("sqrt", lambda xp, x: xp.sqrt(x), lambda xp, x, y: 0.5 / y, "y = sqrt(x)",
       "0.5 / y", uses=("outputs",))
_unary("square", lambda xp, x: xp.square(x), lambda xp, x, y: 2 * x, "y = x * x", "2 * x",
       uses=("inputs",))
_unary("tanh", lambda xp, x: xp.tanh(x), lambda xp, x, y: 1 - y * y, "y = tanh(x)",
       "1 - y * y", uses=("outputs",))
_unary("negative", lambda xp, x: xp.negative(x), lambda xp, x, y: -xp.ones_like(x),
       "y = -x", "-1", uses=("inputs",))
