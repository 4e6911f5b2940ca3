"""The ROI pattern of GluonCV's FPN detectors (``faster_rcnn_fpn_*``, ``mask_rcnn_fpn_*``).

``FasterRCNN._pyramid_roi_feats`` pools every feature level with all ROIs, the ROIs
of other levels replaced by rows of ``-1`` (``F.where`` with a 1-D condition over the
ROI rows), and adds the levels with ``ElementWiseSum``.  This is only right when an ROI
with a negative batch index pools to an all-zero block and leaves the other ROIs alone.

Deliberate difference from MXNet 1.9.1: its CPU ``ROIAlign`` writes ``top_data[n] = 0``
for such an ROI ``n`` (the flat element ``n``, i.e. a value of ROI 0's block, instead of
ROI ``n``'s block, which stays uninitialized), so the FPN detectors give garbage there.
gluonlite follows the mathematics: the pooled block of an invalid ROI is zero and the
other ROIs are untouched.  With this corrected on the MXNet side (the sweep of GluonCV
0.10.5 model zoo masked the invalid ROIs before pooling), ``faster_rcnn_fpn_resnet50_v1b_coco``
and ``mask_rcnn_fpn_resnet18_v1b_coco`` match MXNet to 1e-7.
"""
import numpy as np

import gluonlite as mx


def _levels():
    rng = np.random.RandomState(0)
    feats = [mx.nd.array(rng.randn(1, 3, 16 // s, 16 // s)) for s in (1, 2, 4)]
    rois = mx.nd.array([[0, 1, 1, 6, 5], [0, 0, 2, 15, 14], [0, 2, 0, 9, 9],
                        [0, 0.5, 0.5, 3.5, 2.5]])
    level = mx.nd.array([0, 2, 1, 0])
    return feats, rois, level


def test_invalid_roi_does_not_touch_other_rois():
    data = mx.nd.array(np.random.RandomState(1).randn(1, 2, 8, 8))
    rois = mx.nd.array([[0, 1, 1, 6, 5], [-1, -1, -1, -1, -1], [0, 0.5, 2, 7.5, 7]])
    out = mx.nd.contrib.ROIAlign(data, rois, (2, 2), 1.0, sample_ratio=2).asnumpy()
    alone = mx.nd.contrib.ROIAlign(data, rois[0:1], (2, 2), 1.0, sample_ratio=2).asnumpy()
    # MXNet 1.9.1 gives out[0, 0, 0, 1] == 0 here (its top_data[n] = 0 bug).  Alone, ROI 0
    # goes through GEMMs of another shape, which BLAS may sum in another order: each output
    # is a convex combination of the data, summed over H then W in float32, so the two
    # agree to (H + W) * eps * max|data| and no better
    bound = (8 + 8) * np.finfo(np.float32).eps * np.abs(data.asnumpy()).max()
    np.testing.assert_allclose(out[0], alone[0], rtol=0, atol=bound)
    assert out[0, 0, 0, 1] != 0
    np.testing.assert_array_equal(out[1], 0)


def test_where_with_row_condition_masks_rois():
    _, rois, level = _levels()
    masked = mx.nd.where(level == 0, rois, mx.nd.ones_like(rois) * -1.0).asnumpy()
    want = np.where((level.asnumpy() == 0)[:, None], rois.asnumpy(), -1.0)
    np.testing.assert_array_equal(masked, want)


def _pyramid(F, feats, rois, level):
    pooled = []
    for i, f in enumerate(feats):
        masked = F.where(level == i, rois, F.ones_like(rois) * -1.0)
        pooled.append(F.contrib.ROIAlign(f, masked, (2, 2), 1.0 / (2 ** i), sample_ratio=2))
    return F.ElementWiseSum(*pooled)


def test_fpn_level_sum_equals_per_roi_pooling():
    feats, rois, level = _levels()
    got = _pyramid(mx.nd, feats, rois, level).asnumpy()
    for r, lv in enumerate(level.asnumpy().astype(int)):
        want = mx.nd.contrib.ROIAlign(feats[lv], rois[r:r + 1], (2, 2), 1.0 / (2 ** lv),
                                      sample_ratio=2).asnumpy()
        np.testing.assert_allclose(got[r:r + 1], want, rtol=1e-6, atol=1e-7)
    # the same graph hybridized
    syms = [mx.sym.var(f"f{i}") for i in range(3)]
    graph = _pyramid(mx.sym, syms, mx.sym.var("rois"), mx.sym.var("level"))
    block = mx.gluon.SymbolBlock(graph, syms + [mx.sym.var("rois"), mx.sym.var("level")])
    block.hybridize()
    np.testing.assert_allclose(block(*feats, rois, level).asnumpy(), got, rtol=1e-6, atol=1e-7)
