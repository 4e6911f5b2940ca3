"""``mx.rnn.save_rnn_checkpoint`` / ``load_rnn_checkpoint`` / ``do_rnn_checkpoint``
against the files MXNet 1.9.1 wrote for a fused and an unfused bidirectional LSTM."""
import json
import os
import warnings

import numpy as np
import pytest

import gluonlite as mx

from . import cases

CASE = {"fused": "fused_lstm_bi_2l", "unfused": "unfused_lstm_bi_2l"}


def _build(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cases.build(mx, name)


def _args(data, name):
    return {k[len(name) + 5:]: mx.nd.array(data[k]) for k in data.files
            if k.startswith(name + "/arg/")}


def _write(data, tmp_path, tag):
    for fname in ("%s-symbol.json" % tag, "%s-0003.params" % tag):
        (tmp_path / fname).write_bytes(data["ckpt/" + fname].tobytes())
    return str(tmp_path / tag)


@pytest.mark.parametrize("tag", ["fused", "unfused"])
def test_load_mxnet_rnn_checkpoint(tag, rnn_fixture, tmp_path):
    data, meta = rnn_fixture
    name = CASE[tag]
    built = _build(name)
    prefix = _write(data, tmp_path, tag)
    sym, args, aux = mx.rnn.load_rnn_checkpoint(built["cell"], prefix, 3)
    assert aux == {}
    assert sym.list_arguments() == meta["cases"][name]["list_arguments"]
    want = _args(data, name)
    assert sorted(args) == sorted(want)
    for key, value in want.items():
        np.testing.assert_array_equal(args[key].asnumpy(), value.asnumpy(), err_msg=key)


@pytest.mark.parametrize("tag", ["fused", "unfused"])
def test_save_rnn_checkpoint_like_mxnet(tag, rnn_fixture, tmp_path):
    data, meta = rnn_fixture
    name = CASE[tag]
    built = _build(name)
    mine = str(tmp_path / "mine")
    mx.rnn.save_rnn_checkpoint([built["cell"]], mine, 3, built["group"], _args(data, name),
                               {})
    saved = mx.nd.load(mine + "-0003.params")
    assert sorted(saved) == meta["checkpoint"][tag]
    theirs = mx.nd.load(_write(data, tmp_path, tag) + "-0003.params")
    for key, value in theirs.items():
        np.testing.assert_array_equal(saved[key].asnumpy(), value.asnumpy(), err_msg=key)
    with open(mine + "-symbol.json") as f:
        mine_json = json.load(f)
    their_json = json.loads(data["ckpt/%s-symbol.json" % tag].tobytes().decode())
    assert mine_json["nodes"] == their_json["nodes"]
    assert mine_json["arg_nodes"] == their_json["arg_nodes"]
    assert mine_json["heads"] == their_json["heads"]


def test_do_rnn_checkpoint_period(rnn_fixture, tmp_path):
    data, _ = rnn_fixture
    name = CASE["fused"]
    built = _build(name)
    prefix = str(tmp_path / "cb")
    callback = mx.rnn.do_rnn_checkpoint(built["cell"], prefix, period=2)
    args = _args(data, name)
    for epoch in range(4):
        callback(epoch, built["group"], args, {})
    assert sorted(p for p in os.listdir(tmp_path) if p.endswith(".params")) == \
        ["cb-0002.params", "cb-0004.params"]
    sym, loaded, _ = mx.rnn.load_rnn_checkpoint(built["cell"], prefix, 4)
    np.testing.assert_array_equal(loaded["f_parameters"].asnumpy(),
                                  args["f_parameters"].asnumpy())
    on_disk = mx.nd.load(prefix + "-0004.params")
    assert "arg:f_l0_i2h_i_weight" in on_disk and "arg:f_parameters" not in on_disk
