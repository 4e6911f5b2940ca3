"""Case specs and the graph recipe shared by ``tests/fixtures/gen_symbolic_rnn.py``
(run with MXNet 1.9.1) and the tests (run with gluonlite).

Every function takes the ``mx`` module to build with, so the same recipe makes the
MXNet graph the fixture records and the gluonlite graph the tests compare with it.
This module imports neither library.
"""
import json

T, N, C = 3, 2, 4  # steps, batch, input features
CONV_INPUT = (N, 2, 4, 4)  # one step of the convolutional cases (NCHW)


def _lstm(h, p, **kw):
    return {"type": "LSTMCell", "args": [h], "kwargs": dict(prefix=p, **kw)}


def _gru(h, p):
    return {"type": "GRUCell", "args": [h], "kwargs": {"prefix": p}}


def _rnn(h, p, act="tanh"):
    return {"type": "RNNCell", "args": [h], "kwargs": {"prefix": p, "activation": act}}


def _fused(h, **kw):
    return {"type": "FusedRNNCell", "args": [h], "kwargs": kw}


def _case(cell, inputs="list", layout="NTC", merge=None, begin="func_var", grads=True,
          unfuse=False, train=True):
    return {"cell": cell, "inputs": inputs, "layout": layout, "merge": merge, "begin": begin,
            "grads": grads, "unfuse": unfuse, "train": train}


# begin: "func_var" = cell.begin_state(func=Variable) (fed with values),
#        "manual" = one plain Variable per state, "zeros" = default begin_state()
CASES = {
    "rnn_tanh_list": _case(_rnn(3, "rnn_")),
    "rnn_relu_merged_zeros": _case(_rnn(3, "rnn_", "relu"), inputs="merged", merge=True,
                                   begin="zeros"),
    "lstm_list_merge": _case(_lstm(3, "lstm_", forget_bias=2.0), merge=True),
    "lstm_tnc_split": _case(_lstm(3, "lstm_"), inputs="merged", layout="TNC", merge=False),
    "gru_merged_ntc": _case(_gru(3, "gru_"), inputs="merged", merge=True),
    "gru_list_zeros": _case(_gru(3, "gru_"), merge=False, begin="zeros"),
    "stack_lstm_gru": _case({"type": "SequentialRNNCell",
                             "cells": [_lstm(3, "l0_"), _gru(3, "l1_")]},
                            inputs="merged", merge=True),
    "stack_residual": _case({"type": "SequentialRNNCell",
                             "cells": [{"type": "ResidualCell", "base": _gru(C, "res_")},
                                       _lstm(3, "top_")]},
                            merge=False, begin="manual"),
    "bidir_lstm_tnc": _case({"type": "BidirectionalCell", "l": _lstm(3, "l_"),
                             "r": _lstm(3, "r_"), "kwargs": {"output_prefix": "bi_"}},
                            inputs="merged", layout="TNC", merge=True),
    "bidir_gru_list": _case({"type": "BidirectionalCell", "l": _gru(2, "gl_"),
                             "r": _gru(2, "gr_"), "kwargs": {}}),
    "residual_bidir": _case({"type": "ResidualCell",
                             "base": {"type": "BidirectionalCell", "l": _gru(2, "rl_"),
                                      "r": _gru(2, "rr_"), "kwargs": {}}},
                            merge=False, begin="manual"),
    "residual_merged": _case({"type": "ResidualCell", "base": _rnn(C, "res_")},
                             inputs="merged", merge=True),
    "zoneout_rnn": _case({"type": "ZoneoutCell", "base": _rnn(3, "zo_"),
                          "kwargs": {"zoneout_outputs": 0.5, "zoneout_states": 0.5}},
                         grads=False, train=False),
    "dropout_stack": _case({"type": "SequentialRNNCell",
                            "cells": [_rnn(3, "d0_"), {"type": "DropoutCell", "args": [0.5],
                                                       "kwargs": {"prefix": "drop_"}},
                                      _rnn(3, "d1_")]},
                           inputs="merged", merge=True, grads=False, train=False),
    "fused_lstm_2l_tnc": _case(_fused(3, num_layers=2, mode="lstm", get_next_state=True,
                                      prefix="lstm_"),
                               inputs="merged", layout="TNC", merge=True),
    "fused_gru_bi_ntc": _case(_fused(3, mode="gru", bidirectional=True, get_next_state=True),
                              inputs="merged", merge=False),
    "fused_tanh_bi_2l_nostate": _case(_fused(2, num_layers=2, mode="rnn_tanh",
                                             bidirectional=True), merge=True),
    "fused_relu_zeros": _case(_fused(3, mode="rnn_relu", get_next_state=True),
                              inputs="merged", layout="TNC", merge=True, begin="zeros"),
    "fused_lstm_bi_2l": _case(_fused(3, num_layers=2, mode="lstm", bidirectional=True,
                                     get_next_state=True, prefix="f_"),
                              inputs="merged", merge=True),
    "unfused_lstm_bi_2l": _case(_fused(3, num_layers=2, mode="lstm", bidirectional=True,
                                       get_next_state=True, prefix="f_"),
                                inputs="merged", merge=True, unfuse=True),
    "unfused_gru_dropout": _case(_fused(3, num_layers=2, mode="gru", dropout=0.5,
                                        prefix="g_"),
                                 merge=False, unfuse=True, grads=False, train=False),
    "conv_rnn": _case({"type": "ConvRNNCell", "args": [list(CONV_INPUT), 2],
                       "kwargs": {"prefix": "crnn_"}}),
    "conv_lstm": _case({"type": "ConvLSTMCell", "args": [list(CONV_INPUT), 2],
                        "kwargs": {"prefix": "clstm_", "activation": "tanh"}}),
    "conv_gru": _case({"type": "ConvGRUCell", "args": [list(CONV_INPUT), 2],
                       "kwargs": {"prefix": "cgru_", "i2h_kernel": [3, 3],
                                  "h2h_kernel": [1, 1], "i2h_pad": [1, 1]}}),
}


def _tuples(value):
    return tuple(value) if isinstance(value, list) else value


def make_cell(mx, spec):
    """The (not yet unfused) cell of ``spec``."""
    kind = spec["type"]
    if kind == "SequentialRNNCell":
        stack = mx.rnn.SequentialRNNCell()
        for sub in spec["cells"]:
            stack.add(make_cell(mx, sub))
        return stack
    if kind == "BidirectionalCell":
        return mx.rnn.BidirectionalCell(make_cell(mx, spec["l"]), make_cell(mx, spec["r"]),
                                        **spec["kwargs"])
    if kind in ("ResidualCell", "ZoneoutCell"):
        return getattr(mx.rnn, kind)(make_cell(mx, spec["base"]), **spec.get("kwargs", {}))
    args = [_tuples(a) for a in spec.get("args", [])]
    kwargs = {k: _tuples(v) for k, v in spec.get("kwargs", {}).items()}
    return getattr(mx.rnn, kind)(*args, **kwargs)


def step_shape(case):
    """Shape of one step's input."""
    kind = case["cell"]["type"]
    return CONV_INPUT if kind.startswith("Conv") else (N, C)


def _flatten(states):
    flat = []
    for s in states:
        if isinstance(s, (list, tuple)):
            flat.extend(_flatten(s))
        else:
            flat.append(s)
    return flat


def _filled(shape):
    return tuple(N if d == 0 else d for d in shape)


def build(mx, name):
    """Build case ``name`` with library ``mx``.

    Returns
    -------
    dict
        ``cell`` (the unrolled cell), ``fused`` (the fused cell of an unfuse case, else
        None), ``group`` (outputs then flattened final states), ``n_outputs``,
        ``input_shapes`` (name -> shape of every data and state input),
        ``merged`` (whether the outputs came back as one symbol).
    """
    case = CASES[name]
    with mx.name.NameManager():
        fused = None
        cell = make_cell(mx, case["cell"])
        if case["unfuse"]:
            fused, cell = cell, cell.unfuse()
        one = step_shape(case)
        shapes = {}
        if case["inputs"] == "merged":
            inputs = mx.sym.Variable("data")
            full = list(one)
            full.insert(case["layout"].find("T"), T)
            shapes["data"] = tuple(full)
        else:
            inputs = [mx.sym.Variable("t%d_data" % i) for i in range(T)]
            shapes.update({"t%d_data" % i: tuple(one) for i in range(T)})
        begin = None
        if case["begin"] != "zeros":
            if case["begin"] == "manual":
                begin = [mx.sym.Variable("state%d" % i) for i in range(len(cell.state_info))]
                names = ["state%d" % i for i in range(len(begin))]
            else:
                if isinstance(cell, mx.rnn.ModifierCell):
                    begin = cell.begin_state(mx.sym.Variable)
                else:
                    begin = cell.begin_state(func=mx.sym.Variable)
                names = [b.name for b in begin]
            for nm, info in zip(names, cell.state_info):
                shapes[nm] = _filled(info["shape"])
        outputs, states = cell.unroll(T, inputs, begin_state=begin, layout=case["layout"],
                                      merge_outputs=case["merge"])
        merged = not isinstance(outputs, (list, tuple))
        outs = [outputs] if merged else list(outputs)
        group = mx.sym.Group(outs + _flatten(states))
    return {"cell": cell, "fused": fused, "group": group, "n_outputs": len(outs),
            "input_shapes": shapes, "merged": merged}


def graph_nodes(group):
    """``[(op, name, attrs, inputs)]`` of the graph's JSON, for comparing structure."""
    nodes = json.loads(group.tojson())["nodes"]
    return [[n["op"], n["name"], n.get("attrs", {}), [i[:2] for i in n["inputs"]]]
            for n in nodes]


def state_info_json(cell):
    """``state_info`` with tuples as lists."""
    return [{k: list(v) if isinstance(v, tuple) else v for k, v in info.items()}
            for info in cell.state_info]


SENTENCES_SEED = 7


def sentences():
    """Encoded sentences of varied lengths for the bucketing iterator cases."""
    import random as _random
    rng = _random.Random(SENTENCES_SEED)
    out = []
    for i in range(60):
        length = rng.choice([2, 3, 3, 5, 5, 5, 7, 9, 12])
        out.append([rng.randrange(1, 20) for _ in range(length)])
    return out


BUCKET_CASES = {
    "nt_given": {"batch_size": 4, "buckets": [3, 6, 10], "layout": "NT", "seed": 11},
    "tn_given": {"batch_size": 3, "buckets": [10, 4, 8], "layout": "TN", "seed": 5,
                 "invalid_label": 0, "data_name": "src", "label_name": "tgt"},
    "nt_default": {"batch_size": 5, "buckets": None, "layout": "NT", "seed": 3,
                   "dtype": "int32"},
}
