"""GluonCV and GluonNLP on gluonlite: a detector and a BERT model, unchanged MXNet code.

GluonCV 0.10 and GluonNLP 0.10 ``import mxnet``; ``gluonlite.install_mxnet_alias()``
makes that import give gluonlite, so both packages run as they are::

    pip install gluoncv==0.10.5.post0
    pip install cython && pip install --no-build-isolation gluonnlp==0.10.0
    python tutorials/gluoncv_gluonnlp_on_gluonlite.py

The script uses the GPU when one is there (``mx.gpu()``), the CPU otherwise.

1. A YOLOv3 detector from GluonCV's model zoo: hybridize, detect, export the graph and
   load it back with ``SymbolBlock.imports`` (the deployment path).  The script stays
   offline, so the network starts from random weights and its boxes mean nothing;
   ``get_model(name, pretrained=True)`` gives GluonCV's trained weights the same way.
2. A small BERT from GluonNLP with a classification head, fine-tuned for a few steps on
   a toy task with GluonNLP's own ``BERTAdam`` optimizer through ``gluon.Trainer``; the
   loss falls.
"""
from __future__ import annotations

import os
import tempfile

import numpy as np

import gluonlite

gluonlite.install_mxnet_alias()
import mxnet as mx  # noqa: E402 - gluonlite, through the alias


def _context():
    return mx.gpu() if mx.num_gpus() > 0 else mx.cpu()


def detect(ctx) -> dict:
    """YOLOv3 (MobileNet-0.25 backbone, Pascal VOC classes): detect, export, re-import."""
    import gluoncv
    name = "yolo3_mobilenet0.25_voc"
    # pretrained=True would fetch GluonCV's weights through GluonCV's own model store;
    # this script stays offline and starts from random weights
    net = gluoncv.model_zoo.get_model(name, pretrained=False, pretrained_base=False)
    net.initialize(mx.init.Normal(0.02), ctx=ctx)
    net.hybridize(static_alloc=True)
    rng = np.random.default_rng(0)
    image = mx.nd.array(rng.uniform(0, 1, (1, 3, 320, 320)), ctx=ctx)   # a stand-in image
    ids, scores, boxes = net(image)
    with tempfile.TemporaryDirectory() as folder:
        prefix = os.path.join(folder, name)
        net.export(prefix)
        deployed = mx.gluon.SymbolBlock.imports(f"{prefix}-symbol.json", ["data"],
                                                f"{prefix}-0000.params", ctx=ctx)
        ids2, scores2, boxes2 = deployed(image)
    same = bool(np.allclose(boxes.asnumpy(), boxes2.asnumpy(), atol=1e-4)
                and (ids.asnumpy() == ids2.asnumpy()).all())
    kept = int((scores.asnumpy() > 0.5).sum())
    print(f"{name}: {boxes.shape[1]} candidate boxes, {kept} with "
          f"score > 0.5; exported graph gives the same detections: {same}")
    return {"boxes_shape": tuple(boxes.shape), "export_matches": same,
            "classes": len(net.classes)}


class _Classifier(mx.gluon.HybridBlock):
    """BERT's pooled output into a two-class dense layer."""

    def __init__(self, bert, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.bert = bert
            self.head = mx.gluon.nn.Dense(2)

    def hybrid_forward(self, F, tokens, types, valid):
        _, pooled = self.bert(tokens, types, valid)
        return self.head(pooled)


def fine_tune(ctx, steps: int = 30) -> dict:
    """A 2-layer BERT learns whether a sequence starts with an even token."""
    import gluonnlp
    mx.random.seed(1)
    encoder = gluonnlp.model.BERTEncoder(num_layers=2, units=32, hidden_size=64,
                                         max_length=16, num_heads=4, dropout=0.0)
    bert = gluonnlp.model.BERTModel(encoder, vocab_size=20, token_type_vocab_size=2,
                                    units=32, embed_size=32, use_pooler=True,
                                    use_decoder=False, use_classifier=False)
    net = _Classifier(bert)
    net.initialize(mx.init.Normal(0.02), ctx=ctx)
    net.hybridize()
    trainer = mx.gluon.Trainer(net.collect_params(), "bertadam", {"learning_rate": 3e-3})
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    rng = np.random.default_rng(2)
    tokens_np = rng.integers(0, 20, (64, 8))
    labels = mx.nd.array(tokens_np[:, 0] % 2, ctx=ctx)
    tokens = mx.nd.array(tokens_np, ctx=ctx)
    types = mx.nd.zeros((64, 8), ctx=ctx)
    valid = mx.nd.array([8] * 64, ctx=ctx)
    losses = []
    for step in range(steps):
        with mx.autograd.record():
            loss = loss_fn(net(tokens, types, valid), labels).mean()
        loss.backward()
        trainer.step(1)
        losses.append(float(loss.asscalar()))
    accuracy = float((net(tokens, types, valid).argmax(axis=1) == labels).mean().asscalar())
    print(f"BERT fine-tuning: loss {losses[0]:.3f} -> {losses[-1]:.3f} in {steps} steps, "
          f"training accuracy {accuracy:.2f}")
    return {"loss_first": losses[0], "loss_last": losses[-1], "accuracy": accuracy}


def main() -> dict:
    try:
        import gluoncv  # noqa: F401
        import gluonnlp  # noqa: F401
    except ImportError as err:
        print(f"GluonCV/GluonNLP are not installed ({err}); see the module docstring")
        return {"skipped": str(err)}
    ctx = _context()
    print(f"running on {ctx}")
    return {"detect": detect(ctx), "bert": fine_tune(ctx)}


if __name__ == "__main__":
    main()
