"""Detection operators against MXNet 1.9.1 (fixtures from
``tests/fixtures/gen_contrib_detection.py``): forward outputs and input gradients,
imperatively and through a hybridized block; plus MXNetError for bad shapes."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = np.load(os.path.join(HERE, "fixtures", "contrib_detection.npz"))
CASES = sorted({k.rsplit("/", 1)[0] for k in FIX.files})


def _fn(ns, op):
    for part in op.split("."):
        ns = getattr(ns, part)
    return ns


def _case(case):
    op = str(FIX[f"{case}/op"])
    attrs = json.loads(str(FIX[f"{case}/attrs"]))
    attrs = {k: tuple(v) if isinstance(v, list) else v for k, v in attrs.items()}
    inputs = [FIX[f"{case}/in{i}"] for i in range(10) if f"{case}/in{i}" in FIX.files]
    outs = [FIX[f"{case}/out{i}"] for i in range(10) if f"{case}/out{i}" in FIX.files]
    return op, attrs, inputs, outs


def _tol(case):
    return dict(rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", CASES)
def test_forward_and_gradient(case):
    op, attrs, inputs, expected = _case(case)
    grad_of = [int(i) for i in FIX[f"{case}/grad_of"]]
    arrays = [mx.nd.array(a, dtype=a.dtype) for a in inputs]
    for i in grad_of:
        arrays[i].attach_grad()
    with mx.autograd.record():
        res = _fn(mx.nd, op)(*arrays, **attrs)
    res = res if isinstance(res, (list, tuple)) else [res]
    assert len(res) == len(expected)
    for got, exp in zip(res, expected):
        assert got.shape == exp.shape and got.dtype == exp.dtype, case
        np.testing.assert_allclose(got.asnumpy(), exp, err_msg=case, **_tol(case))
    if grad_of:
        heads = [mx.nd.array(FIX[f"{case}/head{i}"]) for i in range(len(res))]
        mx.autograd.backward(res, heads)
        for i in grad_of:
            np.testing.assert_allclose(arrays[i].grad.asnumpy(), FIX[f"{case}/grad{i}"],
                                       err_msg=f"{case} gradient {i}", **_tol(case))


class _Wrap(mx.gluon.HybridBlock):
    def __init__(self, op, attrs):
        super().__init__()
        self._op, self._attrs = op, attrs

    def hybrid_forward(self, F, *args):
        return _fn(F, self._op)(*args, **self._attrs)


@pytest.mark.parametrize("case", [c for c in CASES if c.split("/")[0] in
                                  ("nms", "roialign", "roipool", "bm", "mbdet")])
def test_hybridized(case):
    op, attrs, inputs, expected = _case(case)
    net = _Wrap(op, attrs)
    net.hybridize()
    res = net(*[mx.nd.array(a, dtype=a.dtype) for a in inputs])
    res = res if isinstance(res, (list, tuple)) else [res]
    for got, exp in zip(res, expected):
        np.testing.assert_allclose(got.asnumpy(), exp, err_msg=case, **_tol(case))


def test_contrib_namespaces():
    for name in ("box_nms", "box_non_maximum_suppression", "box_iou", "box_encode",
                 "box_decode", "bipartite_matching", "ROIAlign", "MultiBoxPrior",
                 "MultiBoxTarget", "MultiBoxDetection"):
        assert hasattr(mx.nd.contrib, name) and hasattr(mx.sym.contrib, name), name
    assert hasattr(mx.nd, "ROIPooling") and hasattr(mx.sym, "ROIPooling")


def test_nms_symbol_shows_one_output():
    y = mx.sym.contrib.box_nms(mx.sym.var("data"))
    assert len(y.list_outputs()) == 1
    _, out_shapes, _ = y.infer_shape(data=(2, 7, 6))
    assert out_shapes == [(2, 7, 6)]


@pytest.mark.parametrize("call", [
    lambda: mx.nd.contrib.box_nms(mx.nd.zeros((5, 4))),
    lambda: mx.nd.contrib.box_nms(mx.nd.zeros((5, 6)), id_index=3),
    lambda: mx.nd.contrib.box_nms(mx.nd.zeros((5,))),
    lambda: mx.nd.contrib.box_iou(mx.nd.zeros((5, 3)), mx.nd.zeros((2, 4))),
    lambda: mx.nd.contrib.box_decode(mx.nd.zeros((2, 5, 4)), mx.nd.zeros((1, 4, 4))),
    lambda: mx.nd.contrib.ROIAlign(mx.nd.zeros((1, 3, 4, 4)), mx.nd.zeros((2, 4)),
                                   pooled_size=(2, 2), spatial_scale=1.0),
    lambda: mx.nd.contrib.ROIAlign(mx.nd.zeros((1, 3, 4, 4)), mx.nd.zeros((2, 5)),
                                   pooled_size=(2, 2), spatial_scale=1.0,
                                   position_sensitive=True),
    lambda: mx.nd.ROIPooling(mx.nd.zeros((3, 4, 4)), mx.nd.zeros((2, 5)),
                             pooled_size=(2, 2), spatial_scale=1.0),
])
def test_user_errors_raise_mxnet_error(call):
    with pytest.raises(MXNetError, match="Operator"):
        call()


def test_roialign_negative_batch_index_gives_zeros():
    data = mx.nd.array(np.random.default_rng(0).standard_normal((1, 2, 5, 5)))
    rois = mx.nd.array([[-1, 0, 0, 3, 3], [0, 0, 0, 3, 3]])
    data.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.ROIAlign(data, rois, pooled_size=(2, 2), spatial_scale=1.0)
    y.backward()
    assert np.all(y.asnumpy()[0] == 0) and np.any(y.asnumpy()[1] != 0)
    only_second = mx.nd.contrib.ROIAlign(data, rois[1:], pooled_size=(2, 2),
                                         spatial_scale=1.0)
    np.testing.assert_allclose(y.asnumpy()[1:], only_second.asnumpy())


def test_untrained_boxes_compute_silently():
    """Overflowing ``exp`` in box_decode and ``nan`` overlaps in box_nms give inf/nan
    as MXNet computes them, without NumPy's RuntimeWarnings."""
    import warnings
    data = mx.nd.array([[[100.0, 100.0, 100.0, 100.0], [np.nan, 0, 1, 1]]])
    anchors = mx.nd.array([[[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]]])
    boxes = mx.nd.array([[[0, 0.9, 0, 0, np.inf, np.inf], [0, 0.8, np.nan, 0, 1, 1]]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        dec = mx.nd.contrib.box_decode(data, anchors).asnumpy()
        mx.nd.contrib.box_nms(boxes, overlap_thresh=0.5).asnumpy()
        mx.nd.contrib.box_iou(boxes[0, :, 2:], boxes[0, :, 2:]).asnumpy()
    assert np.isinf(dec[0, 0]).all()


@pytest.mark.parametrize("chain", [False, True])
def test_greedy_suppress_fixpoint_equals_the_loop(monkeypatch, chain):
    """The whole-array iteration (small matrices) and the loop over candidates (forced
    with a tiny ``_BLOCK``) keep the same boxes: random boxes with classes and NaN, and
    a suppression chain longer than ``_FIXPOINT_STEPS`` (the iteration gives up, the
    loop answers)."""
    from gluonlite.ops import contrib_box
    rng = np.random.default_rng(3)
    nb, k = 3, 120
    if chain:  # box i overlaps i + 1 (IoU 0.6) but not i + 2: greedy keeps every other
        x0 = np.arange(k) * 0.25
        boxes = np.stack([x0, np.zeros(k), x0 + 1.0, np.ones(k)], -1)[None].repeat(nb, 0)
        cls = None
    else:
        lo = rng.uniform(0, 10, (nb, k, 2))
        boxes = np.concatenate([lo, lo + rng.uniform(0.5, 4, (nb, k, 2))], -1)
        boxes[0, 5] = np.nan
        cls = rng.integers(0, 3, (nb, k)).astype(np.float32)
    keep = rng.random((nb, k)) > 0.1
    area = (boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1])

    def overlaps(rows, start):
        a, b = boxes[:, rows, None, :], boxes[:, None, start:, :]
        iw = np.clip(np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]), 0,
                     None)
        ih = np.clip(np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]), 0,
                     None)
        inter = iw * ih
        with np.errstate(invalid="ignore"):
            return inter / (area[:, rows, None] + area[:, None, start:] - inter)

    # the definition, candidate by candidate
    iou = overlaps(np.arange(k), 0)
    want = keep.copy()
    for b in range(nb):
        for j in range(k):
            for i in range(j):
                same = cls is None or cls[b, i] == cls[b, j]
                if want[b, i] and same and iou[b, i, j] > 0.5:
                    want[b, j] = False
    fast = contrib_box.greedy_suppress(np, keep, overlaps, 0.5, cls)
    monkeypatch.setattr(contrib_box, "_BLOCK", 7)
    slow = contrib_box.greedy_suppress(np, keep, overlaps, 0.5, cls)
    np.testing.assert_array_equal(fast, want)
    np.testing.assert_array_equal(slow, want)
    assert fast.sum() < keep.sum()
    # with a limit the first 9 kept of each row are the same; later ones may be dropped
    limited = contrib_box.greedy_suppress(np, keep, overlaps, 0.5, cls, limit=9)
    for b in range(nb):
        first = np.flatnonzero(want[b])[:9]
        np.testing.assert_array_equal(np.flatnonzero(limited[b])[:9], first)
    if chain:  # the iteration alone does not settle on this one
        sup = (iou > 0.5) & np.triu(np.ones((k, k), bool), 1)
        assert contrib_box._fixpoint(np, keep, sup.astype(np.float32)) is None
