"""``dot``, ``batch_dot`` and ``FullyConnected``: one GEMM each (BLAS / cuBLAS).

``dot`` follows MXNet 1.9 for N-D inputs: without transposition it contracts
the last axis of ``lhs`` with the first axis of ``rhs``; ``transpose_a``
contracts the *first* axis of ``lhs`` (its other axes lead the output) and
``transpose_b`` the *last* axis of ``rhs`` (its other axes end the output).
Two vectors give shape ``(1,)``.  ``batch_dot`` multiplies matching leading
batches of ``(..., M, K)`` and ``(..., K, N)`` operands (after the optional
transpositions of the last two axes).  ``FullyConnected`` computes
``data @ weight.T + bias`` over ``data`` flattened to 2-D (``flatten=True``) or
over its last axis (``flatten=False``).
"""
from __future__ import annotations

from .attrs import Attr
from .common import fail, merge_shapes, put
from .registry import OpDef, register
from . import _visual


def _prod(t) -> int:
    p = 1
    for v in t:
        p *= v
    return p


# -- dot ----------------------------------------------------------------------------------
def _dot_split(op, a_shape, b_shape, ta, tb):
    """(contracted length, free dims of lhs, free dims of rhs); raises on mismatch."""
    if len(a_shape) == 0 or len(b_shape) == 0:
        fail(op, "inputs must have at least one dimension", a_shape, b_shape)
    ka = a_shape[0] if ta else a_shape[-1]
    kb = b_shape[-1] if tb else b_shape[0]
    free_a = tuple(a_shape[1:] if ta else a_shape[:-1])
    free_b = tuple(b_shape[:-1] if tb else b_shape[1:])
    if ka and kb and ka != kb:
        fail(op, f"contracted dimensions differ ({ka} vs {kb}; transpose_a={ta}, "
                 f"transpose_b={tb})", a_shape, b_shape)
    return ka or kb, free_a, free_b


def _dot_mats(a, b, ta, tb):
    """2-D views ``(M, K)`` and ``(K, N)`` of the operands."""
    if ta:
        a2 = a.reshape(a.shape[0], -1).T
    else:
        a2 = a.reshape(-1, a.shape[-1])
    if tb:
        b2 = b.reshape(-1, b.shape[-1]).T
    else:
        b2 = b.reshape(b.shape[0], -1)
    return a2, b2


def _dot_forward(oc, attrs, inputs, out):
    a, b = inputs
    ta, tb = attrs.transpose_a, attrs.transpose_b
    _, free_a, free_b = _dot_split("dot", a.shape, b.shape, ta, tb)
    a2, b2 = _dot_mats(a, b, ta, tb)
    shape = (free_a + free_b) or (1,)
    if out is not None:
        oc.xp.matmul(a2, b2, out=out[0].reshape(a2.shape[0], b2.shape[1]))
        return [out[0]]
    return [oc.xp.matmul(a2, b2).reshape(shape)]


def _dot_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    a, b = inputs
    ta, tb = attrs.transpose_a, attrs.transpose_b
    a2, b2 = _dot_mats(a, b, ta, tb)
    dy = out_grads[0].reshape(a2.shape[0], b2.shape[1])
    ga = xp.matmul(dy, b2.T)                      # (M, K)
    gb = xp.matmul(a2.T, dy)                      # (K, N)
    ga = xp.ascontiguousarray(ga.T if ta else ga).reshape(a.shape)
    gb = xp.ascontiguousarray(gb.T if tb else gb).reshape(b.shape)
    return [ga, gb]


def _dot_infer(attrs, in_shapes):
    a, b = in_shapes
    if a is None or b is None:
        return [a, b], [None]
    ta, tb = attrs.transpose_a, attrs.transpose_b
    k, free_a, free_b = _dot_split("dot", a, b, ta, tb)
    a = (k,) + tuple(a[1:]) if ta else tuple(a[:-1]) + (k,)
    b = tuple(b[:-1]) + (k,) if tb else (k,) + tuple(b[1:])
    return [a, b], [(free_a + free_b) or (1,)]


_DOT_ATTRS = {
    "transpose_a": Attr("bool", False),
    "transpose_b": Attr("bool", False),
    "forward_stype": Attr("str", None, optional=True),
}

def _dot_grad_stypes(attrs, stypes):
    """``dot(csr, dense)``: the dense operand's gradient ``dot(csr.T, head)`` is
    row_sparse in MXNet (not with ``transpose_a``)."""
    if stypes[0] == "csr" and not attrs.transpose_a:
        return ("default", "row_sparse")
    return None


register(OpDef("dot", _dot_forward, backward=_dot_backward, attrs=dict(_DOT_ATTRS),
               inputs=("lhs", "rhs"), infer_shape=_dot_infer, backward_uses=("inputs",),
               grad_stypes=_dot_grad_stypes,
               doc="Dot product of two arrays (MXNet ``dot``)."))


# -- batch_dot ----------------------------------------------------------------------------
def _bmats(a, b, ta, tb):
    return (a.swapaxes(-1, -2) if ta else a), (b.swapaxes(-1, -2) if tb else b)


def _batch_check(a_shape, b_shape, ta, tb):
    op = "batch_dot"
    if len(a_shape) < 3 or len(a_shape) != len(b_shape):
        fail(op, "inputs must have the same number (at least 3) of dimensions",
             a_shape, b_shape)
    for x, y in zip(a_shape[:-2], b_shape[:-2]):
        if x and y and x != y:
            fail(op, "the leading batch dimensions must be equal", a_shape, b_shape)
    ka = a_shape[-2] if ta else a_shape[-1]
    kb = b_shape[-1] if tb else b_shape[-2]
    if ka and kb and ka != kb:
        fail(op, f"contracted dimensions differ ({ka} vs {kb})", a_shape, b_shape)
    m = a_shape[-1] if ta else a_shape[-2]
    n = b_shape[-2] if tb else b_shape[-1]
    batch = tuple(x or y for x, y in zip(a_shape[:-2], b_shape[:-2]))
    return batch, m, ka or kb, n


def _bd_forward(oc, attrs, inputs, out):
    a, b = inputs
    ta, tb = attrs.transpose_a, attrs.transpose_b
    _batch_check(a.shape, b.shape, ta, tb)
    a3, b3 = _bmats(a, b, ta, tb)
    if out is not None:
        oc.xp.matmul(a3, b3, out=out[0])
        return [out[0]]
    return [oc.xp.matmul(a3, b3)]


def _bd_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    a, b = inputs
    ta, tb = attrs.transpose_a, attrs.transpose_b
    a3, b3 = _bmats(a, b, ta, tb)
    dy = out_grads[0]
    ga = xp.matmul(dy, b3.swapaxes(-1, -2))
    gb = xp.matmul(a3.swapaxes(-1, -2), dy)
    if ta:
        ga = xp.ascontiguousarray(ga.swapaxes(-1, -2))
    if tb:
        gb = xp.ascontiguousarray(gb.swapaxes(-1, -2))
    return [ga, gb]


def _bd_infer(attrs, in_shapes):
    a, b = in_shapes
    if a is None or b is None:
        return [a, b], [None]
    # MXNet infers nothing until lhs's last and rhs's second-to-last dims are known
    # (whatever the transpositions)
    if len(a) >= 2 and len(b) >= 2 and not (a[-1] > 0 and b[-2] > 0):
        return [a, b], [None]
    ta, tb = attrs.transpose_a, attrs.transpose_b
    batch, m, k, n = _batch_check(a, b, ta, tb)
    a = batch + ((k, m) if ta else (m, k))
    b = batch + ((n, k) if tb else (k, n))
    return [a, b], [batch + (m, n)]


register(OpDef("batch_dot", _bd_forward, backward=_bd_backward, attrs=dict(_DOT_ATTRS),
               inputs=("lhs", "rhs"), infer_shape=_bd_infer, backward_uses=("inputs",),
               doc="Batched matrix product of two N-D arrays (MXNet ``batch_dot``)."))


# -- FullyConnected -----------------------------------------------------------------------
_FC = "FullyConnected"


def _fc_2d(x, flatten: bool):
    return x.reshape(x.shape[0], -1) if flatten else x.reshape(-1, x.shape[-1])


def _fc_forward(oc, attrs, inputs, out):
    xp = oc.xp
    x, w = inputs[0], inputs[1]
    x2 = _fc_2d(x, attrs.flatten)
    if w.ndim != 2 or w.shape[0] != attrs.num_hidden or w.shape[1] != x2.shape[1]:
        fail(_FC, f"weight must have shape ({attrs.num_hidden}, {x2.shape[1]}), "
                  f"got {tuple(w.shape)}", x.shape, w.shape)
    shape = (x.shape[0], attrs.num_hidden) if attrs.flatten else \
        tuple(x.shape[:-1]) + (attrs.num_hidden,)
    # MXNet also accepts a bias of shape (num_hidden, 1)
    bias = None if attrs.no_bias else inputs[2].reshape(-1)
    if out is not None:
        y2 = out[0].reshape(x2.shape[0], attrs.num_hidden)
        xp.matmul(x2, w.T, out=y2)
        if bias is not None:
            y2 += bias
        return [out[0]]
    y = xp.matmul(x2, w.T)
    if bias is not None:
        y += bias
    return [put(out, 0, y.reshape(shape))]


def _fc_backward(oc, attrs, inputs, outputs, out_grads, need=(True, True, True)):
    xp = oc.xp
    x, w = inputs[0], inputs[1]
    x2 = _fc_2d(x, attrs.flatten)
    dy = out_grads[0].reshape(x2.shape[0], attrs.num_hidden)
    if dy.dtype != x.dtype:
        dy = dy.astype(x.dtype)
    grads = [xp.matmul(dy, w).reshape(x.shape) if need[0] else None,
             xp.matmul(dy.T, x2) if need[1] else None]
    if not attrs.no_bias:
        grads.append(dy.sum(axis=0).reshape(inputs[2].shape) if need[2] else None)
    return grads


def _fc_backward_graph(F, attrs, inputs, outputs, out_grads):
    """FullyConnected's gradients as recorded ``F`` operations (higher orders)."""
    x, w = inputs[0], inputs[1]
    h = attrs.num_hidden
    x2 = F.reshape(x, shape=(x.shape[0], -1)) if attrs.flatten else \
        F.reshape(x, shape=(-1, x.shape[-1]))
    dy = F.reshape(out_grads[0], shape=(-1, h))
    grads = [F.reshape(F.dot(dy, w), shape=x.shape), F.dot(dy, x2, transpose_a=True)]
    if not attrs.no_bias:
        grads.append(F.reshape(F.sum(dy, axis=0), shape=inputs[2].shape))
    return grads


def _fc_infer(attrs, in_shapes, out_shapes=(None,)):
    data = in_shapes[0]
    if data is None:
        # MXNet's rule needs the data's rank: nothing is inferred without it (a weight
        # shape stays unknown, as infer_shape_partial reports it)
        return list(in_shapes), [None]
    out_known = out_shapes[0] if out_shapes else None
    if data is not None and out_known is not None:
        # the batch (leading) dimensions come back from a known output, as in MXNet:
        # an RNN begin state (0, H) feeding only a FullyConnected gets its batch size
        lead = 1 if attrs.flatten else len(data) - 1
        if len(out_known) == lead + 1:
            data = merge_shapes(_FC, "data", data,
                                tuple(out_known[:lead]) + (0,) * (len(data) - lead))
    weight = in_shapes[1] if len(in_shapes) > 1 else None
    h = attrs.num_hidden
    in_units = 0
    if data is not None:
        if len(data) < 1:
            fail(_FC, "data must have at least one dimension", data)
        rest = data[1:] if attrs.flatten else data[-1:]
        in_units = _prod(rest) if all(rest) else 0
    weight = merge_shapes(_FC, "weight", (h, in_units), weight)
    if data is not None and not attrs.flatten and weight[1]:
        data = merge_shapes(_FC, "data", data, (0,) * (len(data) - 1) + (weight[1],))
    ins = [data, weight]
    if not attrs.no_bias:
        bias = in_shapes[2] if len(in_shapes) > 2 else None
        if bias is not None and tuple(bias) == (h, 1):
            ins.append((h, 1))  # MXNet's shape rule also takes (num_hidden, 1)
        else:
            ins.append(merge_shapes(_FC, "bias", (h,), bias))
    if data is None:
        return ins, [None]
    out = (data[0], h) if attrs.flatten else tuple(data[:-1]) + (h,)
    return ins, [out]


register(OpDef(
    _FC, _fc_forward, backward=_fc_backward,
    attrs={"num_hidden": Attr("int"), "no_bias": Attr("bool", False),
           "flatten": Attr("bool", True)},
    inputs=lambda attrs: ("data", "weight") if attrs.no_bias else ("data", "weight", "bias"),
    infer_shape=_fc_infer, infer_shape_outputs=True, backward_uses=("inputs",),
    backward_mask=True, backward_graph=_fc_backward_graph,
    summary_params=_visual.fc_params, plot_style=_visual.fc_style,
    doc="Fully connected layer ``data @ weight.T + bias`` (MXNet ``FullyConnected``)."))
