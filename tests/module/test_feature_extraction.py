"""Feature extraction the symbolic way from a checkpoint MXNet 1.9.1 exported
(``fixtures/models/mobilenet0.25``): ``sym.get_internals()`` picks a layer, a
``Module(label_names=None)`` bound for inference takes the checkpoint's parameters with
``set_params(..., allow_extra=True)`` and gives MXNet's features."""
import os

import numpy as np
import pytest

import gluonlite as mx

PREFIX = os.path.join(os.path.dirname(__file__), "..", "fixtures", "models", "mobilenet0.25")
IO = np.load(PREFIX + "-io.npz")


@pytest.mark.parametrize("layer", ["mobilenet0_relu16_fwd_output",
                                   "mobilenet0_batchnorm26_fwd_output"])
def test_internal_layer_features_match_mxnet(layer):
    sym, arg_params, aux_params = mx.model.load_checkpoint(PREFIX, 0)
    features = sym.get_internals()[layer]
    mod = mx.mod.Module(features, label_names=None)
    data = IO["input:data"]
    mod.bind([("data", data.shape)], for_training=False)
    # the checkpoint holds the parameters of the whole net: the extra ones are allowed
    with pytest.raises(ValueError, match="not in the arguments"):
        mod.set_params(arg_params, aux_params)
    mod.set_params(arg_params, aux_params, allow_extra=True)
    mod.forward(mx.io.DataBatch([mx.nd.array(data)]), is_train=False)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), IO[f"internal:{layer}"],
                               rtol=1e-4, atol=1e-5)


def test_whole_model_predict_matches_mxnet():
    mod = mx.mod.Module.load(PREFIX, 0, label_names=None)
    data = IO["input:data"]
    mod.bind([("data", data.shape)], for_training=False)
    out = mod.predict(mx.io.NDArrayIter(data, batch_size=1))
    np.testing.assert_allclose(out.asnumpy(), IO["output:0"], rtol=1e-4, atol=1e-6)
