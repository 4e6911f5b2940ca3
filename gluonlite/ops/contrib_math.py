"""Small elementwise ``contrib`` operators: ``quadratic`` (``a x^2 + b x + c``, MXNet's
example operator) and ``gradientmultiplier`` (identity forward, gradient scaled by
``scalar``: the gradient-reversal layer of domain adaptation)."""
from __future__ import annotations

from .attrs import Attr
from .common import put, same_shape_infer
from .expr import ElemMath, const, var
from .registry import OpDef, register
from .sparse_storage import CSRStorage

_X = var("data")

# -- quadratic ------------------------------------------------------------------------------
_QUAD = "_contrib_quadratic"


def _coeffs(attrs, dtype):
    t = dtype.type
    return t(attrs.a), t(attrs.b), t(attrs.c)


def _quadratic_forward(oc, attrs, inputs, out):
    x = inputs[0]
    a, b, c = _coeffs(attrs, x.dtype)
    return [put(out, 0, (a * x * x + b * x + c).astype(x.dtype, copy=False))]


def _quadratic_backward(oc, attrs, inputs, outputs, out_grads):
    x = inputs[0]
    a, b, _ = _coeffs(attrs, x.dtype)
    return [(out_grads[0] * (x.dtype.type(2) * a * x + b)).astype(x.dtype, copy=False)]


def _quadratic_sparse(oc, attrs, inputs, out):
    """csr in, csr out when ``c == 0`` (zero stays zero), as MXNet's kernel."""
    x = inputs[0]
    if getattr(x, "stype", None) != "csr" or attrs.c != 0:
        return None
    values = _quadratic_forward(oc, attrs, [x.values], None)[0]
    return [CSRStorage(values, x.indices.copy(), x.indptr.copy(), x.shape)]


def _quadratic_math(attrs):
    a, b, c = float(attrs.a), float(attrs.b), float(attrs.c)
    return ElemMath(a * _X * _X + b * _X + c, (2 * a * _X + b,), ("data",))


register(OpDef(
    _QUAD, _quadratic_forward, backward=_quadratic_backward,
    attrs={"a": Attr("float", 0.0), "b": Attr("float", 0.0), "c": Attr("float", 0.0)},
    infer_shape=same_shape_infer(_QUAD), backward_uses=("inputs",), math=_quadratic_math,
    sparse_forward=_quadratic_sparse,
    doc="``a * x**2 + b * x + c`` elementwise."))


# -- gradientmultiplier -----------------------------------------------------------------------
_GM = "_contrib_gradientmultiplier"


def _gm_forward(oc, attrs, inputs, out):
    x = inputs[0]
    return [put(out, 0, x.copy())]


def _gm_backward(oc, attrs, inputs, outputs, out_grads):
    g = out_grads[0]
    return [(g * g.dtype.type(attrs.scalar)).astype(g.dtype, copy=False)]


def _gm_math(attrs):
    return ElemMath(_X, (const(float(attrs.scalar)),), ("data",))


register(OpDef(
    _GM, _gm_forward, backward=_gm_backward,
    attrs={"scalar": Attr("float", 1.0), "is_int": Attr("bool", True)},
    infer_shape=same_shape_infer(_GM), backward_uses=(), math=_gm_math,
    doc="Identity forward; the gradient is multiplied by ``scalar``."))
