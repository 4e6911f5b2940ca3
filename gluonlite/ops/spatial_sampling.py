"""Spatial-transformer operators: ``BilinearSampler`` and ``GridGenerator``.

``BilinearSampler(data, grid)`` reads ``data`` (N, C, H, W) at the points of ``grid``
(N, 2, Ho, Wo), whose channel 0 is x and channel 1 is y, both normalised so that -1
and 1 are the centres of the first and last pixels.  Each output is the bilinear blend
of the four neighbouring pixels; neighbours outside the image count as zero.  The
gather and the gradient scatter are written with flat indices and ``bincount``, so
there is no loop over pixels.

``GridGenerator`` makes such grids: ``affine`` from a (N, 6) matrix applied to the
normalised target coordinates, ``warp`` from a (N, 2, H, W) flow field in pixels.
"""
from __future__ import annotations

from .attrs import Attr
from .common import fail, put
from .registry import OpDef, register

_BS = "BilinearSampler"
_GG = "GridGenerator"


def _acc(dtype) -> str:
    """Computation dtype: float64 stays, float16 is widened to float32."""
    return "float64" if dtype == "float64" else "float32"


def _corners(xp, grid, h: int, w: int):
    """Per corner ``(flat index, valid mask)`` plus the fractional parts of x and y."""
    acc = _acc(grid.dtype)
    x = (grid[:, 0].astype(acc) + 1) * (w - 1) / 2
    y = (grid[:, 1].astype(acc) + 1) * (h - 1) / 2
    x0 = xp.floor(x)
    y0 = xp.floor(y)
    fx, fy = x - x0, y - y0
    x0 = x0.astype("int64")
    y0 = y0.astype("int64")
    corners = []
    for dy in (0, 1):
        for dx in (0, 1):
            cy, cx = y0 + dy, x0 + dx
            valid = (cy >= 0) & (cy < h) & (cx >= 0) & (cx < w)
            corners.append((xp.where(valid, cy * w + cx, 0), valid))
    return corners, fx, fy


def _corner_weights(fx, fy):
    return ((1 - fy) * (1 - fx), (1 - fy) * fx, fy * (1 - fx), fy * fx)


def _gather(xp, flat, index, valid):
    """``flat`` (N, C, H*W) read at ``index`` (N, Ho, Wo) -> (N, C, Ho, Wo), 0 where invalid."""
    n, c, _ = flat.shape
    idx = index.reshape(n, 1, -1)
    vals = xp.take_along_axis(flat, xp.broadcast_to(idx, (n, c, idx.shape[2])), axis=2)
    return vals.reshape((n, c) + index.shape[1:]) * valid[:, None]


def _bs_check(data, grid):
    if data.ndim != 4 or grid.ndim != 4 or grid.shape[1] != 2 or grid.shape[0] != data.shape[0]:
        _bs_infer(None, [data.shape, grid.shape])


def _bs_forward(oc, attrs, inputs, out):
    xp = oc.xp
    data, grid = inputs
    _bs_check(data, grid)
    n, c, h, w = data.shape
    flat = data.astype(_acc(data.dtype)).reshape(n, c, h * w)
    corners, fx, fy = _corners(xp, grid, h, w)
    result = sum(_gather(xp, flat, index, valid) * weight[:, None]
                 for (index, valid), weight in zip(corners, _corner_weights(fx, fy)))
    return [put(out, 0, result.astype(data.dtype))]


def _bs_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    data, grid = inputs
    n, c, h, w = data.shape
    acc = _acc(data.dtype)
    head = out_grads[0].astype(acc)
    flat = data.astype(acc).reshape(n, c, h * w)
    corners, fx, fy = _corners(xp, grid, h, w)
    weights = _corner_weights(fx, fy)
    # scatter-add head * weight into each (n, c) plane: one bincount over flat indices
    base = (xp.arange(n * c, dtype="int64") * (h * w)).reshape(n, c, 1, 1)
    total = xp.zeros(n * c * h * w, dtype=acc)
    for (index, valid), weight in zip(corners, weights):
        contrib = head * (weight * valid)[:, None]
        total += xp.bincount((base + index[:, None]).ravel(), weights=contrib.ravel(),
                             minlength=total.size).astype(acc)
    d_data = total.reshape(data.shape).astype(data.dtype)
    v00, v01, v10, v11 = (_gather(xp, flat, index, valid) for index, valid in corners)
    # d out / d x and d out / d y of the bilinear blend, summed over channels
    gx = ((v01 - v00) * (1 - fy)[:, None] + (v11 - v10) * fy[:, None]) * head
    gy = ((v10 - v00) * (1 - fx)[:, None] + (v11 - v01) * fx[:, None]) * head
    d_grid = xp.stack([gx.sum(axis=1) * ((w - 1) / 2), gy.sum(axis=1) * ((h - 1) / 2)],
                      axis=1).astype(grid.dtype)
    return [d_data, d_grid]


def _bs_infer(attrs, shapes):
    data, grid = shapes
    if data is not None and len(data) != 4:
        fail(_BS, "data must be 4-D (N, C, H, W)", data, grid)
    if grid is not None and (len(grid) != 4 or grid[1] not in (0, 2)):
        fail(_BS, "grid must be 4-D (N, 2, H_out, W_out)", data, grid)
    if data is not None and grid is not None and data[0] and grid[0] and data[0] != grid[0]:
        fail(_BS, "data and grid must have the same batch size", data, grid)
    if data is None or grid is None:
        return [data, grid], [None]
    return [data, (grid[0] or data[0], 2) + tuple(grid[2:])], \
        [(data[0] or grid[0], data[1], grid[2], grid[3])]


register(OpDef(_BS, _bs_forward, backward=_bs_backward,
               attrs={"cudnn_off": Attr("bool", None, optional=True)},
               inputs=("data", "grid"), infer_shape=_bs_infer, backward_uses=("inputs",),
               doc="Sample NCHW data bilinearly at normalised grid points (zero outside)."))


def _target_grid(xp, h: int, w: int, acc: str):
    """(3, h*w): normalised x, y and ones of every target pixel, row-major."""
    xs = xp.linspace(-1, 1, w, dtype=acc) if w > 1 else xp.full(1, -1, acc)
    ys = xp.linspace(-1, 1, h, dtype=acc) if h > 1 else xp.full(1, -1, acc)
    gx = xp.broadcast_to(xs[None, :], (h, w)).ravel()
    gy = xp.broadcast_to(ys[:, None], (h, w)).ravel()
    return xp.stack([gx, gy, xp.ones(h * w, dtype=acc)])


def _warp_scale(xp, h: int, w: int, acc: str):
    return xp.asarray([(w - 1) / 2, (h - 1) / 2], dtype=acc).reshape(1, 2, 1, 1)


def _gg_forward(oc, attrs, inputs, out):
    xp = oc.xp
    data = inputs[0]
    acc = _acc(data.dtype)
    _gg_infer(attrs, [data.shape])
    if attrs.transform_type == "affine":
        h, w = attrs.target_shape
        theta = data.astype(acc).reshape(-1, 2, 3)
        grid = xp.matmul(theta, _target_grid(xp, h, w, acc)).reshape(-1, 2, h, w)
    else:
        n, _, h, w = data.shape
        pixels = _target_grid(xp, h, w, acc)[:2].reshape(1, 2, h, w)
        # flow in pixels, added to the pixel coordinates, then normalised to [-1, 1]
        grid = data.astype(acc) / _warp_scale(xp, h, w, acc) + pixels
    return [put(out, 0, grid.astype(data.dtype))]


def _gg_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    data = inputs[0]
    acc = _acc(data.dtype)
    head = out_grads[0].astype(acc)
    if attrs.transform_type == "affine":
        h, w = attrs.target_shape
        grad = xp.matmul(head.reshape(-1, 2, h * w), _target_grid(xp, h, w, acc).T)
        return [grad.reshape(data.shape).astype(data.dtype)]
    return [(head / _warp_scale(xp, *data.shape[2:], acc)).astype(data.dtype)]


def _gg_infer(attrs, shapes):
    data = shapes[0]
    if attrs.transform_type == "affine":
        h, w = (tuple(attrs.target_shape) + (0, 0))[:2]
        if not (h and w):
            fail(_GG, f"affine needs target_shape (H, W), got {attrs.target_shape}", data)
        if data is not None and (len(data) != 2 or data[1] not in (0, 6)):
            fail(_GG, "affine data must be (N, 6)", data)
        batch = data[0] if data is not None else 0
        return [(batch, 6)], [(batch, 2, h, w) if batch else None]
    if data is None:
        return [None], [None]
    if len(data) != 4 or data[1] not in (0, 2):
        fail(_GG, "warp data must be a flow field (N, 2, H, W)", data)
    return [tuple(data)], [tuple(data)]


register(OpDef(_GG, _gg_forward, backward=_gg_backward,
               attrs={"transform_type": Attr("str", "affine", choices=("affine", "warp")),
                      "target_shape": Attr("shape", (0, 0))},
               inputs=("data",), infer_shape=_gg_infer, backward_uses=("inputs",),
               doc="Sampling grid for BilinearSampler from an affine matrix or a flow field."))
