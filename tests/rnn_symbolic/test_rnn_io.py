"""``mx.rnn.io`` against MXNet 1.9.1: ``encode_sentences`` and the batches, shuffling
and descriptors of ``BucketSentenceIter`` for seeded runs."""
import random

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.io import DataBatch, DataDesc, DataIter

from . import cases


def test_encode_sentences_matches_mxnet(rnn_fixture):
    _, meta = rnn_fixture
    enc = meta["encode"]
    for call in enc["calls"]:
        kwargs = dict(call["kwargs"])
        if "vocab" in kwargs:
            kwargs["vocab"] = dict(kwargs["vocab"])
        result, vocab = mx.rnn.io.encode_sentences(enc["sentences"], **kwargs)
        assert result == call["result"], call["kwargs"]
        assert vocab == call["vocab"], call["kwargs"]


def test_encode_sentences_unknown_token_without_unknown_raises():
    with pytest.raises(AssertionError, match="Unknown token"):
        mx.rnn.encode_sentences([["x"]], vocab={"a": 0})


def test_encode_sentences_grows_given_vocab_in_place():
    vocab = {"a": 1}
    mx.rnn.encode_sentences([["a", "zz"]], vocab=vocab, unknown_token="<unk>")
    assert vocab == {"a": 1, "<unk>": 0}


def _descs(descs):
    return [[d.name, list(d.shape), d.layout] for d in descs]


@pytest.mark.parametrize("name", sorted(cases.BUCKET_CASES))
def test_bucket_sentence_iter_matches_mxnet(name, rnn_fixture, capsys):
    data, meta = rnn_fixture
    spec = cases.BUCKET_CASES[name]
    want = meta["bucket"][name]
    random.seed(spec["seed"])
    np.random.seed(spec["seed"])
    kwargs = {k: v for k, v in spec.items() if k not in ("seed", "batch_size")}
    if kwargs.get("buckets") is not None:
        kwargs["buckets"] = list(kwargs["buckets"])
    it = mx.rnn.BucketSentenceIter(cases.sentences(), spec["batch_size"], **kwargs)
    assert "discarded" in capsys.readouterr().out
    assert isinstance(it, DataIter)
    assert it.default_bucket_key == want["default_bucket_key"]
    assert list(it.buckets) == want["buckets"]
    assert _descs(it.provide_data) == want["provide_data"]
    assert _descs(it.provide_label) == want["provide_label"]
    assert all(isinstance(d, DataDesc) for d in it.provide_data + it.provide_label)
    dtype = np.dtype(spec.get("dtype", "float32"))
    for epoch, batches in enumerate(want["epochs"]):
        if epoch:
            it.reset()
        got = list(it)
        assert len(got) == len(batches)
        for k, (batch, ref) in enumerate(zip(got, batches)):
            assert isinstance(batch, DataBatch)
            assert batch.bucket_key == ref["bucket_key"]
            assert batch.pad == ref["pad"]
            assert _descs(batch.provide_data) == ref["provide_data"]
            assert _descs(batch.provide_label) == ref["provide_label"]
            prefix = "bucket/%s/e%d/b%d/" % (name, epoch, k)
            assert batch.data[0].dtype == dtype
            np.testing.assert_array_equal(batch.data[0].asnumpy(), data[prefix + "data"])
            np.testing.assert_array_equal(batch.label[0].asnumpy(), data[prefix + "label"])
        with pytest.raises(StopIteration):
            it.next()


def test_bucket_sentence_iter_bad_layout():
    with pytest.raises(ValueError, match="Invalid layout"):
        mx.rnn.BucketSentenceIter([[1, 2]] * 4, 2, buckets=[2], layout="CT")


def test_bucket_sentence_iter_drops_long_sentences(capsys):
    it = mx.rnn.BucketSentenceIter([[1, 2], [3, 4], [1, 2, 3, 4, 5]], 2, buckets=[3])
    assert "discarded 1 sentences" in capsys.readouterr().out
    batch = it.next()
    assert batch.bucket_key == 3 and batch.data[0].shape == (2, 3)
    assert sorted(batch.label[0].asnumpy()[:, -1].tolist()) == [-1, -1]
