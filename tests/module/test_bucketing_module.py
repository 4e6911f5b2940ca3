"""``mx.mod.BucketingModule`` against MXNet 1.9.1 (fixture ``bucketing.npz``): Adam over
several bucket keys gives MXNet's parameters and outputs; buckets share parameters
and optimizer; checkpoints round-trip."""
import os
import sys

import numpy as np
import pytest

import gluonlite as mx

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
sys.path.insert(0, FIXTURES)
from bucketing_cases import BATCH, DEFAULT_KEY, batches, sym_gen_for, train  # noqa: E402

EXPECTED = np.load(os.path.join(FIXTURES, "bucketing.npz"))


def test_training_over_buckets_matches_mxnet():
    mod = train(mx)
    args, _ = mod.get_params()
    for name, value in args.items():
        # (Adam divides by sqrt(v): near-zero gradients leave ~1e-6 float noise)
        np.testing.assert_allclose(value.asnumpy(), EXPECTED[f"arg:{name}"], rtol=1e-5,
                                   atol=1e-5, err_msg=name)
    for batch in batches(mx)[:3]:
        mod.forward(batch, is_train=False)
        np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(),
                                   EXPECTED[f"predict:{batch.bucket_key}"], rtol=1e-5,
                                   atol=1e-7)
    assert sorted(mod._buckets) == [3, 5, 8]
    default = mod._buckets[DEFAULT_KEY]
    for module in mod._buckets.values():
        assert module._trainer is default._trainer
        assert module._exec_group._params["fc_weight"] is \
            default._exec_group._params["fc_weight"]


def test_checkpoint_roundtrip(tmp_path):
    mod = train(mx)
    prefix = str(tmp_path / "bucket")
    mod.save_checkpoint(prefix, 3)
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["bucket-0003.params", "bucket.buckets"] + [f"bucket-{k}-symbol.json" for k in (3, 5, 8)])
    loaded = mx.mod.BucketingModule.load(prefix, 3, sym_gen=sym_gen_for(mx),
                                         default_bucket_key=DEFAULT_KEY)
    loaded.bind([mx.io.DataDesc("data", (BATCH, DEFAULT_KEY))],
                [mx.io.DataDesc("softmax_label", (BATCH,))], for_training=False)
    batch = batches(mx)[1]
    for module in (mod, loaded):
        module.forward(batch, is_train=False)
    np.testing.assert_allclose(loaded.get_outputs()[0].asnumpy(),
                               mod.get_outputs()[0].asnumpy(), rtol=1e-6)


def test_errors():
    mod = mx.mod.BucketingModule(sym_gen_for(mx), default_bucket_key=DEFAULT_KEY)
    with pytest.raises(mx.base.MXNetError, match="Empty BucketingModule"):
        mod.save_checkpoint("unused", 0)
    with pytest.raises(AssertionError, match="call bind"):
        mod.switch_bucket(3, [("data", (BATCH, 3))])
    with pytest.raises(AssertionError):
        mx.mod.BucketingModule(sym_gen_for(mx))
