"""GluonCV 0.10.5.post0 and GluonNLP 0.10.0 run on gluonlite (through the ``mxnet``
alias) with MXNet 1.9.1's numbers.

The fixtures come from ``tests/fixtures/gen_gluoncv_nlp.py``; models, parameters and
inputs from ``tests/fixtures/gluoncv_nlp_cases.py``, which both sides run.  Where
GluonCV or GluonNLP is not installed the module skips.
"""
import importlib.util
import os
import sys

import numpy as np
import pytest

import gluonlite

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "fixtures")
DATA = os.path.join(FIX, "gluoncv_nlp")

# skip before touching sys.modules: the alias is installed only where both packages are
if importlib.util.find_spec("gluoncv") is None or importlib.util.find_spec("gluonnlp") is None:
    pytest.skip("gluoncv and gluonnlp are not installed", allow_module_level=True)
gluonlite.install_mxnet_alias()
gluoncv = pytest.importorskip("gluoncv")
gluonnlp = pytest.importorskip("gluonnlp")
sys.path.insert(0, FIX)

import gluoncv_nlp_cases as cases  # noqa: E402

mx = gluonlite


@pytest.fixture(scope="module")
def cv_ref():
    return np.load(os.path.join(DATA, "cv.npz"))


def _close(got, want, rtol=1e-4, atol=1e-4, what=""):
    got = np.asarray(got)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


def _check_outputs(name, outs, ref, tag):
    key = cases.model_key(name)
    n = len([k for k in ref.files if k.startswith(f"{key}:out")])
    assert len(outs) == n
    if name in cases.DETECTORS:
        ids, scores, boxes = outs
        _close(ids, ref[f"{key}:{tag}0"], atol=0, rtol=0, what=f"{name} ids")
        _close(scores, ref[f"{key}:{tag}1"], rtol=1e-4, atol=1e-5, what=f"{name} scores")
        _close(boxes, ref[f"{key}:{tag}2"], rtol=1e-4, atol=1e-3, what=f"{name} boxes")
    else:
        _close(outs[0], ref[f"{key}:{tag}0"], what=name)


_NAMES = list(cases.CV_MODELS)


@pytest.mark.parametrize("name", _NAMES)
def test_cv_forward(name, cv_ref, tmp_path):
    net = cases.build_cv(mx, gluoncv, name)
    key = cases.model_key(name)
    assert sorted(net._collect_params_with_prefix()) == list(cv_ref[f"{key}:params"])
    x = mx.nd.array(cv_ref[f"{key}:input"])
    _check_outputs(name, cases.cv_outputs(net(x)), cv_ref, "out")
    # parameters through save_parameters / load_parameters into a fresh network
    path = str(tmp_path / "net.params")
    net.save_parameters(path)
    shape, kwargs = cases.CV_MODELS[name]
    with mx.name.NameManager():
        fresh = gluoncv.model_zoo.get_model(name, pretrained=False, **kwargs)
    for attr, value in cases.CV_ATTRS.get(name, {}).items():
        owner = fresh
        *parents, last = attr.split(".")
        for part in parents:
            owner = getattr(owner, part)
        setattr(owner, last, value)
    fresh.load_parameters(path)
    fresh.hybridize()
    _check_outputs(name, cases.cv_outputs(fresh(x)), cv_ref, "hyb")
    # export, then SymbolBlock.imports of our export and of MXNet's -symbol.json
    prefix = str(tmp_path / key)
    fresh.export(prefix)
    block = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"],
                                         prefix + "-0000.params")
    _check_outputs(name, cases.cv_outputs(block(x)), cv_ref, "out")
    theirs = mx.gluon.SymbolBlock.imports(os.path.join(DATA, key + "-symbol.json"), ["data"],
                                          prefix + "-0000.params")
    theirs.hybridize()
    _check_outputs(name, cases.cv_outputs(theirs(x)), cv_ref, "out")


def test_ssd_train_step():
    name = "ssd_512_mobilenet1.0_voc"
    ref = np.load(os.path.join(DATA, "ssd_train.npz"))
    net = cases.build_cv(mx, gluoncv, name)
    got = cases.ssd_train_step(mx, gluoncv, net, mx.nd.array(cases.cv_input(name)))
    assert sorted(got) == sorted(ref.files)
    _close(got["cls_targets"], ref["cls_targets"], rtol=0, atol=0, what="cls_targets")
    _close(got["box_targets"], ref["box_targets"], rtol=1e-5, atol=1e-5, what="box_targets")
    for k in ("sum_loss", "cls_loss", "box_loss"):
        _close(got[k], ref[k], rtol=1e-4, atol=1e-5, what=k)
    for k in ref.files:
        if k.startswith("gsq:"):
            _close(got[k], ref[k], rtol=1e-3, atol=1e-9, what=k)
        elif k.startswith("gsum:"):  # a sum of terms of both signs: scale by the norm
            scale = float(np.sqrt(ref["gsq:" + k[5:]]))
            _close(got[k], ref[k], rtol=0, atol=1e-3 * scale + 1e-9, what=k)
        elif k.startswith("new:"):
            _close(got[k], ref[k], rtol=1e-5, atol=1e-4, what=k)
    # the backbone learned too (its exact numbers are rounding noise, see the cases)
    for key, p in net._collect_params_with_prefix().items():
        if p.grad_req != "null":
            assert np.isfinite(p.grad().asnumpy()).all(), key


def _nlp_check(got, ref):
    assert sorted(got) == sorted(ref.files)
    for k in ref.files:
        # float32 rounding is relative to the array's scale (an embedding's gradient sums
        # terms of size 10 into entries near 0)
        scale = max(float(np.abs(ref[k]).max()), 1e-3)
        _close(got[k], ref[k], rtol=1e-4, atol=2e-5 * scale, what=k)


@pytest.mark.parametrize("hybridize", [False, True])
def test_bert_forward_backward(hybridize):
    net = cases.build_bert(mx, gluonnlp)
    net.load_parameters(os.path.join(DATA, "bert.params"))
    if hybridize:
        net.hybridize()
    _nlp_check(cases.bert_forward_backward(mx, net), np.load(os.path.join(DATA, "bert.npz")))


@pytest.mark.parametrize("hybridize", [False, True])
def test_standard_rnn_forward_backward(hybridize):
    net = cases.build_rnn(mx, gluonnlp)
    net.load_parameters(os.path.join(DATA, "rnn.params"))
    if hybridize:
        net.hybridize()
    _nlp_check(cases.rnn_forward_backward(mx, net), np.load(os.path.join(DATA, "rnn.npz")))


@pytest.mark.parametrize("hybridize", [False, True])
def test_bilm_encoder_with_foreach(hybridize):
    """ELMo's encoder: hybridized, each layer is a ``_foreach`` node."""
    net = cases.build_bilm(mx, gluonnlp)
    net.load_parameters(os.path.join(DATA, "bilm.params"))
    if hybridize:
        net.hybridize()
    _nlp_check(cases.bilm_forward_backward(mx, net), np.load(os.path.join(DATA, "bilm.npz")))


@pytest.mark.parametrize("hybridize", [False, True])
def test_hybrid_beam_search_sampler(hybridize):
    """``while_loop`` with a ``cond`` inside; MXNet's own numbers are from its imperative
    run (hybridized, MXNet 1.9.1 stops on a dtype check inside the sampler's cond)."""
    decoder = cases.build_beam_decoder(mx)
    decoder.load_parameters(os.path.join(DATA, "beam_decoder.params"))
    got = cases.beam_search(mx, gluonnlp, decoder, hybridize)
    ref = np.load(os.path.join(DATA, "beam.npz"))
    np.testing.assert_array_equal(got["samples"], ref["samples"])
    np.testing.assert_array_equal(got["valid_length"], ref["valid_length"])
    np.testing.assert_allclose(got["scores"], ref["scores"], rtol=1e-5, atol=1e-6)
