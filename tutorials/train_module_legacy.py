"""The legacy symbolic workflow: ``mx.mod.Module`` and ``BucketingModule``.

Scripts written for MXNet's Module API run unchanged.  This tutorial shows:

1. a network as a ``Symbol`` with a ``SoftmaxOutput`` loss head, data in an
   ``mx.io.NDArrayIter`` (made here, no download);
2. ``Module.fit`` with an evaluation set, a ``Speedometer`` batch callback and a
   ``do_checkpoint`` epoch callback (``prefix-symbol.json`` + ``prefix-%04d.params``);
3. ``Module.load`` of that checkpoint, bound for inference, ``score`` and ``predict``;
4. variable-length sequences with ``mx.rnn.BucketSentenceIter`` and a
   ``BucketingModule`` whose ``sym_gen`` unrolls an ``mx.rnn`` LSTM stack to each
   bucket's length, all buckets sharing one set of parameters, scored with
   ``Perplexity``.

Run it with ``python tutorials/train_module_legacy.py``.  The classifier reaches a
validation accuracy above 0.9; the sequence model (learning "the next token is the
current one plus one") brings its perplexity from about the vocabulary size down to
below 2.  MXNet 1.9.1 running the same script (``import mxnet as mx``): accuracy 0.99,
perplexity 10.0 -> 1.16.
"""
from __future__ import annotations

import logging
import os
import random
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import gluonlite as mx  # noqa: E402  (MXNet code would say: import mxnet as mx)

CLASSES = 4
VOCAB = 10


def make_blobs(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` 2-D points around four centres, labelled by centre."""
    rng = np.random.RandomState(seed)
    centres = np.array([[2, 2], [-2, 2], [-2, -2], [2, -2]], dtype=np.float32)
    labels = rng.randint(0, CLASSES, count)
    points = centres[labels] + rng.randn(count, 2).astype(np.float32) * 0.8
    return points, labels.astype(np.float32)


def classifier() -> mx.sym.Symbol:
    data = mx.sym.var("data")
    hidden = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=32, name="fc1"),
                               act_type="relu", name="relu1")
    out = mx.sym.FullyConnected(hidden, num_hidden=CLASSES, name="fc2")
    return mx.sym.SoftmaxOutput(out, name="softmax")


def train_classifier(folder: str) -> dict:
    train_x, train_y = make_blobs(800, seed=1)
    val_x, val_y = make_blobs(200, seed=2)
    train_iter = mx.io.NDArrayIter(train_x, train_y, batch_size=32, shuffle=True)
    val_iter = mx.io.NDArrayIter(val_x, val_y, batch_size=32)
    prefix = os.path.join(folder, "blobs")

    mod = mx.mod.Module(classifier(), data_names=["data"], label_names=["softmax_label"])
    mod.fit(train_iter, eval_data=val_iter, eval_metric="acc", num_epoch=5,
            optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9},
            initializer=mx.init.Xavier(),
            batch_end_callback=mx.callback.Speedometer(32, frequent=10),
            epoch_end_callback=mx.callback.do_checkpoint(prefix))
    accuracy = mod.score(val_iter, "acc")[0][1]

    # a fresh process would start here: the checkpoint holds the graph and the weights
    restored = mx.mod.Module.load(prefix, 5)
    restored.bind(val_iter.provide_data, val_iter.provide_label, for_training=False)
    restored_accuracy = restored.score(val_iter, "acc")[0][1]
    probabilities = restored.predict(val_iter)[:5]
    return {"accuracy": accuracy, "restored_accuracy": restored_accuracy,
            "predicted": probabilities.asnumpy().argmax(axis=1).tolist(),
            "labels": val_y[:5].astype(int).tolist()}


def counting_sentences(count: int, seed: int) -> list:
    """Sentences of 3-9 tokens counting up modulo VOCAB - 1 (token 0 is padding)."""
    rng = np.random.RandomState(seed)
    out = []
    for _ in range(count):
        start, length = rng.randint(0, VOCAB - 1), rng.randint(3, 10)
        out.append([1 + (start + i) % (VOCAB - 1) for i in range(length)])
    return out


def sequence_model() -> callable:
    stack = mx.rnn.SequentialRNNCell()
    for i in range(2):
        stack.add(mx.rnn.LSTMCell(num_hidden=32, prefix=f"lstm_l{i}_"))

    def sym_gen(seq_len):
        data = mx.sym.Variable("data")
        label = mx.sym.Variable("softmax_label")
        embed = mx.sym.Embedding(data=data, input_dim=VOCAB, output_dim=16, name="embed")
        stack.reset()
        outputs, _ = stack.unroll(seq_len, inputs=embed, merge_outputs=True)
        pred = mx.sym.FullyConnected(mx.sym.Reshape(outputs, shape=(-1, 32)),
                                     num_hidden=VOCAB, name="pred")
        label = mx.sym.Reshape(label, shape=(-1,))
        return mx.sym.SoftmaxOutput(pred, label, name="softmax"), ("data",), \
            ("softmax_label",)
    return sym_gen


def train_sequences() -> dict:
    random.seed(0)
    np.random.seed(0)
    sentences = counting_sentences(600, seed=3)
    train_iter = mx.rnn.BucketSentenceIter(sentences, 32, buckets=[4, 6, 8, 10],
                                           invalid_label=0)
    mod = mx.mod.BucketingModule(sequence_model(),
                                 default_bucket_key=train_iter.default_bucket_key)
    perplexity = mx.metric.Perplexity(ignore_label=0)
    mod.bind(train_iter.provide_data, train_iter.provide_label)
    mod.init_params(mx.init.Xavier())
    before = mod.score(train_iter, perplexity)[0][1]
    train_iter.reset()  # fit starts from where the iterator is, as in MXNet
    mod.fit(train_iter, eval_metric=mx.metric.Perplexity(ignore_label=0), num_epoch=6,
            optimizer="adam", optimizer_params={"learning_rate": 0.02})
    after = mod.score(train_iter, perplexity)[0][1]
    return {"perplexity_before": before, "perplexity_after": after,
            "buckets": sorted(mod._buckets)}


def main() -> dict:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    with tempfile.TemporaryDirectory() as folder:
        result = train_classifier(folder)
    result.update(train_sequences())
    print(result)
    return result


if __name__ == "__main__":
    main()
