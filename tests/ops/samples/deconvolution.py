"""Samples for ``Deconvolution`` (stride, pad, adj, target_shape, groups, dilation)."""
import itertools

import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(37)


def _x(*shape):
    return _rng.standard_normal(shape)


def _tup(v, nd, d):
    return tuple(v) if v else (d,) * nd


def deconv_ref(x, w, b=None, kernel=(), stride=(), dilate=(), pad=(), adj=(),
               target_shape=(), num_filter=1, num_group=1, no_bias=True, **_):
    """Scatter every input pixel times the kernel, then crop (loops: test sizes only)."""
    nd = len(kernel)
    s, d, p, a = _tup(stride, nd, 1), _tup(dilate, nd, 1), _tup(pad, nd, 0), _tup(adj, nd, 0)
    n, c = x.shape[:2]
    full = [(x.shape[2 + i] - 1) * s[i] + d[i] * (kernel[i] - 1) + 1 for i in range(nd)]
    if target_shape:
        out = list(target_shape)
        lo = [(f - t + 1) // 2 for f, t in zip(full, out)]
    else:
        out = [f - 2 * pp + aa for f, pp, aa in zip(full, p, a)]
        lo = list(p)
    size = [max(f, l + o) for f, l, o in zip(full, lo, out)]
    cg, fg = c // num_group, num_filter // num_group
    buf = np.zeros((n, num_filter) + tuple(size))
    for g in range(num_group):
        for pos in itertools.product(*[range(m) for m in x.shape[2:]]):
            v = x[(slice(None), slice(g * cg, (g + 1) * cg)) + pos]          # (n, cg)
            contrib = np.einsum("nc,cf...->nf...", v, w[g * cg:(g + 1) * cg])
            sl = tuple(slice(q * ss, q * ss + (k - 1) * dd + 1, dd)
                       for q, ss, k, dd in zip(pos, s, kernel, d))
            buf[(slice(None), slice(g * fg, (g + 1) * fg)) + sl] += contrib
    y = buf[(slice(None), slice(None)) + tuple(slice(l, l + o) for l, o in zip(lo, out))]
    if not no_bias and b is not None:
        y = y + b.reshape((1, -1) + (1,) * nd)
    return y


SAMPLES = {
    "Deconvolution": [
        Sample([_x(2, 3, 3, 3), _x(3, 2, 3, 3)], dict(kernel=(3, 3), num_filter=2),
               ref=deconv_ref),
        Sample([_x(1, 4, 3, 2), _x(4, 3, 3, 2), _x(6)],
               dict(kernel=(3, 2), num_filter=6, num_group=2, stride=(2, 3), pad=(1, 0),
                    adj=(1, 1), no_bias=False), ref=deconv_ref, name="group_adj_bias"),
        Sample([_x(1, 2, 3, 3), _x(2, 1, 3, 3)],
               dict(kernel=(3, 3), num_filter=1, stride=(2, 2), target_shape=(6, 5)),
               ref=deconv_ref, name="target_shape"),
        Sample([_x(2, 2, 4), _x(2, 2, 2)],
               dict(kernel=(2,), num_filter=2, stride=(2,), dilate=(2,), pad=(1,)),
               ref=deconv_ref, name="1d_dilate"),
        Sample([_x(1, 2, 2, 2, 2), _x(2, 1, 2, 2, 2)],
               dict(kernel=(2, 2, 2), num_filter=1, stride=(2, 1, 2)), ref=deconv_ref,
               infer_from=[0], name="3d_infer"),
    ],
}
