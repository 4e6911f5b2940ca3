"""``BilinearSampler``, ``GridGenerator`` and ``image.imrotate`` against MXNet 1.9.1
(fixture ``spatial_sampling.npz``): outputs and gradients, imperative and in a graph."""
import os

import numpy as np
import pytest

import gluonlite as mx

FIXTURE = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                               "spatial_sampling.npz"))


def _get(prefix):
    return {k.split("/")[-1]: FIXTURE[k] for k in FIXTURE.files if k.startswith(prefix + "/")}


def _run_with_grads(fn, arrays, head):
    arrays = [mx.nd.array(a) for a in arrays]
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        y = fn(*arrays)
    y.backward(mx.nd.array(head))
    return y.asnumpy(), [a.grad.asnumpy() for a in arrays]


@pytest.mark.parametrize("case", ["square", "wide", "upsample"])
def test_bilinear_sampler_matches_mxnet(case):
    f = _get(f"bs/{case}")
    y, (dd, dg) = _run_with_grads(mx.nd.BilinearSampler, [f["data"], f["grid"]], f["head"])
    np.testing.assert_allclose(y, f["out"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dd, f["ddata"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dg, f["dgrid"], rtol=1e-5, atol=1e-5)


def test_bilinear_sampler_in_a_hybridized_block():
    f = _get("bs/square")

    class Sampler(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, data, grid):
            return F.BilinearSampler(data, grid)

    net = Sampler()
    net.hybridize()
    y, _ = _run_with_grads(net, [f["data"], f["grid"]], f["head"])
    np.testing.assert_allclose(y, f["out"], rtol=1e-5, atol=1e-6)
    sym = mx.sym.BilinearSampler(mx.sym.var("d"), mx.sym.var("g"))
    _, out_shapes, _ = sym.infer_shape(d=(2, 3, 5, 5), g=(2, 2, 4, 6))
    assert out_shapes == [(2, 3, 4, 6)]


@pytest.mark.parametrize("case", ["affine", "warp"])
def test_grid_generator_matches_mxnet(case):
    f = _get(f"gg/{case}")
    target = tuple(int(t) for t in f["target"])
    y, (dd,) = _run_with_grads(
        lambda d: mx.nd.GridGenerator(d, transform_type=case, target_shape=target),
        [f["data"]], f["head"])
    np.testing.assert_allclose(y, f["out"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dd, f["ddata"], rtol=1e-5, atol=1e-5)


def test_bad_shapes_raise_naming_the_operator():
    with pytest.raises(mx.base.MXNetError, match=r"BilinearSampler.*\(2, 3, 4\)"):
        mx.nd.BilinearSampler(mx.nd.ones((2, 3, 4)), mx.nd.ones((2, 2, 3, 3)))
    with pytest.raises(mx.base.MXNetError, match="BilinearSampler.*batch"):
        mx.nd.BilinearSampler(mx.nd.ones((2, 1, 4, 4)), mx.nd.ones((3, 2, 3, 3)))
    with pytest.raises(mx.base.MXNetError, match=r"GridGenerator.*\(2, 5\)"):
        mx.nd.GridGenerator(mx.nd.ones((2, 5)), target_shape=(3, 3))
    with pytest.raises(mx.base.MXNetError, match="GridGenerator.*target_shape"):
        mx.nd.GridGenerator(mx.nd.ones((2, 6)))


@pytest.mark.parametrize("case", ["single_30", "batch_zoom_in", "batch_zoom_out"])
def test_imrotate_matches_mxnet(case):
    f = _get(f"rot/{case}")
    zoom_in, zoom_out = (bool(v) for v in f["flags"])
    angle = float(f["angle"]) if f["angle"].ndim == 0 else mx.nd.array(f["angle"])
    out = mx.image.imrotate(mx.nd.array(f["src"]), angle, zoom_in=zoom_in, zoom_out=zoom_out)
    np.testing.assert_allclose(out.asnumpy(), f["out"], rtol=1e-5, atol=2e-6)


def test_rotate_transforms():
    from gluonlite.gluon.data.vision import transforms
    f = _get("rot/single_30")
    src = mx.nd.array(f["src"])
    np.testing.assert_allclose(transforms.Rotate(30.0)(src).asnumpy(), f["out"], rtol=1e-5,
                               atol=2e-6)
    np.random.seed(4)
    np.random.random()  # RandomRotation first draws whether to rotate
    expected = mx.image.imrotate(src, np.random.uniform(-40, 40))
    np.random.seed(4)
    out = transforms.RandomRotation((-40, 40))(src)
    np.testing.assert_allclose(out.asnumpy(), expected.asnumpy())
    np.random.seed(0)
    assert transforms.RandomRotation((-40, 40), rotate_with_proba=0.0)(src) is src
    with pytest.raises(TypeError, match="float32"):
        transforms.Rotate(10)(mx.nd.ones((3, 4, 4), dtype="uint8"))
    with pytest.raises(ValueError, match="ordered"):
        transforms.RandomRotation((10, -10))
    with pytest.raises(ValueError, match="cannot be both True"):
        mx.image.imrotate(src, 10, zoom_in=True, zoom_out=True)
    with pytest.raises(ValueError, match="number of rotation angles"):
        mx.image.imrotate(mx.nd.ones((2, 1, 3, 3)), mx.nd.array([1, 2, 3]))
