"""More of MXNet 1.9's importable module paths under ``install_mxnet_alias()`` and the
modules behind them: ``mx.space``, ``mx.executor_manager``, ``mx.notebook``,
``mx.contrib.tensorboard``, ``mx.contrib.amp.lists``, ``mx.kvstore.kvstore_server``,
``mx.ndarray_doc``/``mx.symbol_doc`` and ``mx.onnx.mx2onnx``'s private modules."""
import doctest
import importlib
import json
import os
import pickle
import sys
import types

import numpy as np
import pytest

import gluonlite as mx

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")

# path -> public names MXNet 1.9.1 defines there (that gluonlite keeps)
PATHS = {
    "mxnet.space": ["ConfigSpace", "ConfigSpaces", "OtherOptionSpace", "OtherOptionEntity"],
    "mxnet.executor_manager": ["DataParallelExecutorManager", "DataParallelExecutorGroup",
                               "_split_input_slice", "_check_arguments", "_load_general",
                               "_load_data", "_load_label", "_bind_exec"],
    "mxnet.notebook": ["callback"],
    "mxnet.notebook.callback": ["PandasLogger", "LiveBokehChart", "LiveTimeSeries",
                                "LiveLearningCurve", "args_wrapper", "_add_new_columns",
                                "_extend"],
    "mxnet.contrib.tensorboard": ["LogMetricsCallback"],
    "mxnet.contrib.amp.lists": ["symbol_fp16", "symbol_bf16"],
    "mxnet.contrib.amp.lists.symbol_fp16": ["FP16_FUNCS", "FP16_FP32_FUNCS", "FP32_FUNCS",
                                            "CONDITIONAL_FP32_FUNCS", "WIDEST_TYPE_CASTS",
                                            "LOSS_OUTPUT_FUNCTIONS"],
    "mxnet.contrib.amp.lists.symbol_bf16": ["BF16_FUNCS", "BF16_FP32_FUNCS",
                                            "BF16_USE_FP32_PARAMS", "FP32_FUNCS",
                                            "CONDITIONAL_FP32_FUNCS", "WIDEST_TYPE_CASTS",
                                            "LOSS_OUTPUT_FUNCTIONS"],
    "mxnet.kvstore.kvstore_server": ["KVStoreServer", "_init_kvstore_server_module"],
    "mxnet.ndarray_doc": ["NDArrayDoc", "ReshapeDoc", "elemwise_addDoc", "BroadcastToDoc",
                          "StackDoc", "CustomDoc", "_build_doc"],
    "mxnet.symbol_doc": ["SymbolDoc", "ActivationDoc", "DropoutDoc", "EmbeddingDoc",
                         "FlattenDoc", "FullyConnectedDoc", "ConcatDoc", "BroadcastPlusDoc",
                         "_build_doc"],
    "mxnet.onnx.mx2onnx._export_model": ["export_model", "get_operator_support"],
    "mxnet.onnx.mx2onnx._export_helper": ["load_module"],
    "mxnet.onnx.mx2onnx._export_onnx": ["MXNetGraph"],
    "mxnet.onnx.mx2onnx._op_translations": ["_op_translations_opset12",
                                            "_op_translations_opset13"],
    "mxnet.onnx.mx2onnx._op_translations._op_translations_opset12": [
        "parse_helper", "transform_padding", "convert_string_to_list",
        "get_boolean_attribute_value"],
    "mxnet.onnx.mx2onnx._op_translations._op_translations_opset13": [
        "parse_helper", "transform_padding", "convert_string_to_list",
        "get_boolean_attribute_value"],
}


@pytest.mark.parametrize("path", sorted(PATHS))
def test_module_path_imports_under_the_alias(path):
    mx.install_mxnet_alias()
    module = importlib.import_module(path)
    missing = [name for name in PATHS[path] if not hasattr(module, name)]
    assert not missing, f"{path} lacks {missing}"
    assert module is importlib.import_module("gluonlite" + path[len("mxnet"):])


# -- mx.space ---------------------------------------------------------------------------
def test_config_space_round_trips_through_json():
    from gluonlite.space import (ConfigSpace, ConfigSpaces, OtherOptionEntity,
                                 OtherOptionSpace)
    space = ConfigSpace({"tile": OtherOptionSpace([1, 2, 4]), "unroll": OtherOptionSpace([0, 1])},
                        {"tile": OtherOptionEntity(2), "unroll": OtherOptionEntity(1)})
    assert len(space) == 6 and len(ConfigSpace({}, {})) == 1
    as_json = json.loads(json.dumps(space.to_json_dict()))
    assert as_json == {"e": [["tile", "ot", 2], ["unroll", "ot", 1]],
                       "s": [["tile", "ot", [1, 2, 4]], ["unroll", "ot", [0, 1]]]}
    back = ConfigSpace.from_json_dict(as_json)
    assert back.to_json_dict() == space.to_json_dict()
    assert repr(back.space_map["tile"]) == "OtherOption([1, 2, 4]) len=3"
    assert "ConfigSpace (len=6" in repr(back) and " 0 tile:" in repr(back)

    spaces = ConfigSpaces()
    spaces["conv"] = space
    assert len(spaces) == 1
    again = ConfigSpaces.from_json_dict(json.loads(json.dumps(spaces.to_json_dict())))
    assert again.to_json_dict() == spaces.to_json_dict()
    assert "ConfigSpaces (len=1" in repr(again)
    with pytest.raises(RuntimeError, match="knob type"):
        ConfigSpace.from_json_dict({"e": [["tile", "sp", 2]], "s": []})
    with pytest.raises(RuntimeError, match="Invalid entity"):
        ConfigSpace({}, {"x": 3}).to_json_dict()


def test_config_space_from_tvm_objects():
    from gluonlite.space import ConfigSpace
    ns = types.SimpleNamespace
    tvm_space = ns(space_map={"k": ns(entities=[ns(val=1), ns(val=3)])},
                   _entity_map={"k": ns(val=3)})
    space = ConfigSpace.from_tvm(tvm_space)
    assert len(space) == 2 and space._entity_map["k"].val == 3


# -- mx.executor_manager ----------------------------------------------------------------
def test_split_input_slice():
    from gluonlite.executor_manager import _split_input_slice
    assert _split_input_slice(10, [1, 2, 2]) == [slice(0, 2), slice(2, 6), slice(6, 10)]
    assert _split_input_slice(7, [1, 1, 1]) == [slice(0, 2), slice(2, 4), slice(4, 7)]
    with pytest.raises(ValueError, match="Too many slices"):
        _split_input_slice(2, [1, 1, 1])


def test_module_splits_a_batch_by_the_same_rule():
    """Module's executor group slices batches with the executor manager's function (one
    rule, MXNet's), so a batch too small for its devices fails the same way."""
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
    mod = mx.mod.Module(net, label_names=None, context=[mx.cpu(0), mx.cpu(1), mx.cpu(2)])
    with pytest.raises(ValueError, match="Too many slices.*batch size 2 over 3 devices"):
        mod.bind(data_shapes=[("data", (2, 3))])
    mod = mx.mod.Module(net, label_names=None, context=[mx.cpu(0), mx.cpu(1)],
                        work_load_list=[1, 3])
    mod.bind(data_shapes=[("data", (8, 3))])
    assert mod._exec_group.slices == [slice(0, 2), slice(2, 8)]


def test_check_arguments_refuses_duplicates():
    from gluonlite.executor_manager import _check_arguments
    a = mx.sym.var("a")
    with pytest.raises(ValueError, match='duplicated argument name "a"'):
        _check_arguments(mx.sym.FullyConnected(a, weight=mx.sym.var("a"), num_hidden=2,
                                               no_bias=True))
    _check_arguments(mx.sym.FullyConnected(a, num_hidden=2))


def _mlp():
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(fc, name="softmax")


def _full_batch_grads(net, params, x, y):
    exe = net.simple_bind(mx.cpu(), data=x.shape, softmax_label=y.shape)
    exe.copy_params_from(params)
    exe.forward(is_train=True, data=mx.nd.array(x), softmax_label=mx.nd.array(y))
    exe.backward()
    return {k: v.asnumpy() for k, v in exe.grad_dict.items() if k in params}


def test_data_parallel_manager_matches_one_executor():
    from gluonlite.executor_manager import DataParallelExecutorManager
    rng = np.random.RandomState(0)
    x, y = rng.randn(6, 4).astype("f"), rng.randint(0, 3, 6).astype("f")
    net = _mlp()
    it = mx.io.NDArrayIter(x, y, batch_size=6, label_name="softmax_label")
    args = net.list_arguments()
    names = ["fc_weight", "fc_bias"]
    manager = DataParallelExecutorManager(net, [mx.cpu(0), mx.cpu(1)], it, args, names, [],
                                          work_load_list=[1, 2])
    assert manager.slices == [slice(0, 2), slice(2, 6)]
    params = {"fc_weight": mx.nd.array(rng.randn(3, 4)), "fc_bias": mx.nd.array(rng.randn(3))}
    manager.set_params(params, {})
    batch = next(iter(it))
    manager.load_data_batch(batch)
    manager.forward(is_train=True)
    manager.backward()
    expected = _full_batch_grads(net, params, x, y)
    for name, grads in zip(manager.param_names, manager.grad_arrays):
        assert len(grads) == 2
        np.testing.assert_allclose(sum(g.asnumpy() for g in grads), expected[name],
                                   rtol=1e-5, atol=1e-6)
    metric = mx.metric.Accuracy()
    manager.update_metric(metric, batch.label)
    probs = np.concatenate([e.outputs[0].asnumpy() for e in manager.execgrp.train_execs])
    assert metric.get()[1] == pytest.approx(np.mean(probs.argmax(1) == y))

    out = {"fc_weight": mx.nd.zeros((3, 4)), "fc_bias": mx.nd.zeros(3)}
    manager.copy_to(out, {})
    np.testing.assert_allclose(out["fc_weight"].asnumpy(), params["fc_weight"].asnumpy(),
                               rtol=1e-6)


def test_data_parallel_manager_bucketing_shares_parameters():
    from gluonlite.executor_manager import DataParallelExecutorManager
    from gluonlite.io import DataBatch, DataDesc

    def sym_gen(key):
        data = mx.sym.var("data")
        net = mx.sym.FullyConnected(mx.sym.Reshape(data, shape=(0, -1)), num_hidden=2,
                                    name="fc")
        return mx.sym.SoftmaxOutput(net, name="softmax") if key == 4 else \
            mx.sym.SoftmaxOutput(mx.sym.relu(net), name="softmax")

    train = types.SimpleNamespace(batch_size=4, default_bucket_key=4,
                                  provide_data=[DataDesc("data", (4, 4))],
                                  provide_label=[DataDesc("softmax_label", (4,))])
    net = sym_gen(4)
    manager = DataParallelExecutorManager(net, [mx.cpu(0), mx.cpu(1)], train,
                                          net.list_arguments(), ["fc_weight", "fc_bias"], [],
                                          sym_gen=sym_gen)
    with pytest.raises(NotImplementedError):
        manager.install_monitor(mx.mon.Monitor(1))
    manager.set_params({"fc_weight": mx.nd.ones((2, 4)), "fc_bias": mx.nd.zeros(2)}, {})
    batch = DataBatch([mx.nd.ones((4, 4))], [mx.nd.zeros(4)], bucket_key=5,
                      provide_data=[DataDesc("data", (4, 4))],
                      provide_label=[DataDesc("softmax_label", (4,))])
    manager.load_data_batch(batch)
    assert set(manager.execgrp_bucket) == {4, 5}
    group = manager.execgrp_bucket[5]
    for i, texec in enumerate(group.train_execs):
        assert texec.arg_dict["fc_weight"] is manager.execgrp.train_execs[i].arg_dict["fc_weight"]
    manager.forward(is_train=True)
    manager.backward()
    assert group.train_execs[0].outputs[0].shape == (2, 2)


def test_load_general_checks_the_batch_size():
    from gluonlite.executor_manager import _load_general
    dst = [mx.nd.zeros((2, 3)), mx.nd.zeros((1, 3))]
    src = mx.nd.array(np.arange(9).reshape(3, 3))
    _load_general([src], [[(slice(0, 2), dst[0]), (slice(2, 3), dst[1])]])
    np.testing.assert_array_equal(dst[1].asnumpy(), [[6, 7, 8]])
    whole = mx.nd.zeros((3, 3))
    _load_general([src], [whole])
    np.testing.assert_array_equal(whole.asnumpy(), src.asnumpy())
    with pytest.raises(AssertionError, match="Batch size miss match"):
        _load_general([src], [[(slice(0, 2), dst[0])]])


# -- mx.notebook ------------------------------------------------------------------------
class _Metric:
    def __init__(self, pairs):
        self.pairs, self.resets = pairs, 0

    def get_name_value(self):
        return list(self.pairs)

    def reset(self):
        self.resets += 1


def _param(nbatch, metric=None, epoch=0):
    return types.SimpleNamespace(nbatch=nbatch, epoch=epoch, eval_metric=metric)


def test_pandas_logger_without_pandas_says_so():
    if importlib.util.find_spec("pandas") is not None:
        pytest.skip("pandas is installed")
    from gluonlite.notebook.callback import PandasLogger
    with pytest.raises(ImportError, match="pandas"):
        PandasLogger(batch_size=4)


def test_pandas_logger_rows():
    pytest.importorskip("pandas")
    from gluonlite.notebook.callback import PandasLogger
    logger = PandasLogger(batch_size=4, frequent=2)
    metric = _Metric([("accuracy", 0.5)])
    for i in range(5):
        logger.train_cb(_param(i, metric))
    logger.eval_cb(_param(5))
    logger.epoch_cb(0, None, None, None)
    assert len(logger.train_df) == 3 and metric.resets == 3
    assert list(logger.train_df["minibatch_count"]) == [0, 2, 4]
    assert set(logger.eval_df.columns) >= {"elapsed", "epoch", "records_per_sec"}
    assert list(logger.epoch_df.columns) == ["elapsed", "epoch_time"] or \
        set(logger.epoch_df.columns) == {"elapsed", "epoch_time"}
    assert set(logger.all_dataframes) == {"train", "eval", "epoch"}


def test_args_wrapper_collects_callbacks():
    from gluonlite.notebook.callback import _extend, args_wrapper

    class CB:
        def __init__(self, tag):
            self.tag = tag

        def callback_args(self):
            return {"batch_end_callback": self.tag, "eval_end_callback": self.tag + "e"}

    assert args_wrapper(CB("a"), CB("b")) == {"batch_end_callback": ["a", "b"],
                                              "eval_end_callback": ["ae", "be"]}
    base = [1, 2]
    _extend(base, [1, 2, 3, 4])
    assert base == [1, 2, 3, 4]


@pytest.fixture
def fake_bokeh(monkeypatch):
    """A stand-in for bokeh: records figures, glyphs, shows and pushes."""
    calls = {"show": 0, "push": 0, "output_notebook": 0}

    class Glyph:
        visible = True

    class Figure:
        def __init__(self, **kwargs):
            self.kwargs = kwargs
            self.legend = types.SimpleNamespace(location=None)
            self.yaxis = types.SimpleNamespace(axis_label=None)
            self.glyphs = []

        def line(self, x, y, **kwargs):
            self.glyphs.append((x, y, kwargs))
            return Glyph()

        scatter = line

    def show(fig, notebook_handle=False):
        calls["show"] += 1
        return "handle"

    def push_notebook(handle=None):
        assert handle == "handle"
        calls["push"] += 1

    def output_notebook():
        calls["output_notebook"] += 1

    io = types.ModuleType("bokeh.io")
    io.output_notebook, io.push_notebook = output_notebook, push_notebook
    plotting = types.ModuleType("bokeh.plotting")
    plotting.figure, plotting.show = Figure, show
    bokeh = types.ModuleType("bokeh")
    bokeh.io, bokeh.plotting = io, plotting
    for name, module in (("bokeh", bokeh), ("bokeh.io", io), ("bokeh.plotting", plotting)):
        monkeypatch.setitem(sys.modules, name, module)
    return calls


def test_live_learning_curve_collects_points(fake_bokeh):
    from gluonlite.notebook.callback import LiveLearningCurve
    chart = LiveLearningCurve("accuracy", display_freq=1e9, frequent=2)
    assert fake_bokeh == {"show": 1, "push": 0, "output_notebook": 1}
    assert chart.fig.yaxis.axis_label == "accuracy"
    for i in range(30):
        chart.batch_cb(_param(i, _Metric([("accuracy", i / 30)])))
    assert fake_bokeh["push"] == 0  # display_freq not reached
    chart.eval_cb(_param(30, _Metric([("accuracy", 0.9)])))
    assert fake_bokeh["push"] == 1
    assert len(chart.x_axis_val1) == 15 and chart.y_axis_val1[1] == pytest.approx(2 / 30)
    assert chart.y_axis_val2 == [0.9]
    assert chart.train2.visible and not chart.train1.visible
    assert set(chart.callback_args()) == {"batch_end_callback", "eval_end_callback"}


def test_live_time_series(fake_bokeh):
    from gluonlite.notebook.callback import LiveTimeSeries
    chart = LiveTimeSeries(title="loss")
    assert chart.fig.kwargs["title"] == "loss"
    chart.update_chart_data(0.5)
    chart.eval_cb(_param(0))
    assert chart.y_axis_val == [0.5] and fake_bokeh["push"] == 2


def test_live_chart_without_bokeh_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "bokeh", None)
    from gluonlite.notebook.callback import LiveLearningCurve
    with pytest.raises(ImportError, match="bokeh"):
        LiveLearningCurve("accuracy")


# -- mx.contrib.tensorboard -------------------------------------------------------------
def test_log_metrics_callback_writes_scalars(monkeypatch):
    written = []

    class SummaryWriter:
        def __init__(self, logdir):
            self.logdir = logdir

        def add_scalar(self, tag, value, global_step=None):
            written.append((self.logdir, tag, value, global_step))

    monkeypatch.setitem(sys.modules, "mxboard", types.SimpleNamespace(SummaryWriter=SummaryWriter))
    from gluonlite.contrib.tensorboard import LogMetricsCallback
    cb = LogMetricsCallback("logs/train", prefix="train")
    cb(_param(3, _Metric([("accuracy", 0.25), ("ce", 1.5)]), epoch=2))
    cb(_param(4))  # no metric: nothing
    LogMetricsCallback("logs/eval")(_param(0, _Metric([("accuracy", 0.5)]), epoch=1))
    assert written == [("logs/train", "train-accuracy", 0.25, 2),
                       ("logs/train", "train-ce", 1.5, 2), ("logs/eval", "accuracy", 0.5, 1)]


def test_log_metrics_callback_without_a_writer(monkeypatch):
    for name in ("mxboard", "tensorboardX", "torch.utils.tensorboard"):
        monkeypatch.setitem(sys.modules, name, None)
    from gluonlite.contrib.tensorboard import LogMetricsCallback
    with pytest.raises(ImportError, match="mxboard"):
        LogMetricsCallback("logs")


# -- mx.contrib.amp.lists ---------------------------------------------------------------
def _entry_name(entry):
    return entry if isinstance(entry, str) else entry[0]


@pytest.mark.parametrize("module_name", ["symbol_fp16", "symbol_bf16"])
def test_amp_lists_match_mxnet(module_name):
    from gluonlite.ops.registry import find_op
    module = importlib.import_module(f"gluonlite.contrib.amp.lists.{module_name}")
    with open(os.path.join(FIXTURES, "amp_lists.json")) as f:
        reference = json.load(f)[module_name]
    assert sorted(module.__all__) == sorted(reference)
    for list_name, mx_list in reference.items():
        ours = getattr(module, list_name)
        names = [_entry_name(e) for e in ours]
        assert all(find_op(n) is not None for n in names), list_name
        assert len(set(names)) == len(names), list_name
        wanted = [e for e in mx_list if find_op(_entry_name(e)) is not None]
        if isinstance(mx_list, dict):
            assert ours == {k: mx_list[k] for k in wanted}
        else:
            assert [list(e) if isinstance(e, tuple) else e for e in ours] == wanted, list_name


def test_amp_lists_cover_the_lists_contrib_amp_publishes():
    from gluonlite.contrib.amp import list_conditional_fp32_ops, list_lp16_ops
    from gluonlite.contrib.amp.lists import symbol_fp16
    assert set(list_lp16_ops()) <= set(symbol_fp16.FP16_FUNCS)
    assert all(tuple(c) in [tuple(d) for d in symbol_fp16.CONDITIONAL_FP32_FUNCS]
               for c in list_conditional_fp32_ops())


# -- mx.kvstore.kvstore_server ----------------------------------------------------------
def test_kvstore_server_module_on_a_worker(monkeypatch):
    from gluonlite.kvstore import kvstore_server
    monkeypatch.delenv("DMLC_ROLE", raising=False)
    assert kvstore_server._init_kvstore_server_module() is None
    monkeypatch.setenv("DMLC_ROLE", "worker")
    assert kvstore_server._init_kvstore_server_module() is None


@pytest.mark.parametrize("role", ["server", "scheduler"])
def test_kvstore_server_module_refuses_to_serve(monkeypatch, role):
    from gluonlite.kvstore import kvstore_server
    monkeypatch.setenv("DMLC_ROLE", role)
    with pytest.raises(mx.MXNetError, match=f"DMLC_ROLE={role}.*no distributed kvstore"):
        kvstore_server._init_kvstore_server_module()


def test_kvstore_server_controller_sets_the_optimizer(capsys):
    from gluonlite.kvstore.kvstore_server import KVStoreServer
    kv = mx.kv.create("local")
    server = KVStoreServer(kv)
    controller = server._controller()
    controller(0, pickle.dumps(mx.optimizer.SGD(learning_rate=0.5)), None)
    kv.init(3, mx.nd.ones((2,)))
    kv.push(3, mx.nd.ones((2,)))
    out = mx.nd.zeros((2,))
    kv.pull(3, out=out)
    np.testing.assert_allclose(out.asnumpy(), [0.5, 0.5])
    controller(7, "body", None)
    assert "unknown command (7, body)" in capsys.readouterr().out
    with pytest.raises(mx.MXNetError, match="no distributed kvstore"):
        server.run()


# -- mx.ndarray_doc / mx.symbol_doc -----------------------------------------------------
def _run_doctests(module, globs):
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    tests = [t for t in doctest.DocTestFinder().find(module, globs=globs) if t.examples]
    for test in tests:
        runner.run(test)
    return tests, runner.summarize(verbose=False)


def test_doc_class_examples_run():
    from gluonlite import ndarray_doc, symbol_doc, test_utils
    globs = {name: getattr(mx.sym, name) for name in dir(mx.sym) if not name.startswith("_")}
    globs.update(SymbolDoc=symbol_doc.SymbolDoc, mx=mx, np=np, test_utils=test_utils,
                 Variable=mx.sym.Variable)
    tests, result = _run_doctests(symbol_doc, globs)
    assert len(tests) >= 7 and result.failed == 0
    tests, result = _run_doctests(ndarray_doc, {"mx": mx, "np": np})
    assert len(tests) >= 4 and result.failed == 0


def test_build_doc_layout():
    from gluonlite import ndarray_doc, symbol_doc
    doc = symbol_doc._build_doc("Concat", "Joins arrays.", ["data", "dim", "num_args"],
                                ["NDArray-or-Symbol[]", "int, default='1'", "int"],
                                ["The inputs", "The axis", "How many"],
                                key_var_num_args="num_args")
    assert doc.startswith("Joins arrays.\nThis function support variable length of "
                          "positional input.\n\nParameters\n----------\ndata : Symbol[]\n"
                          "    The inputs\ndim : int, default='1'\n    The axis\n\n"
                          "name : string, optional.\n")
    assert "num_args" not in doc and "\n\nExamples\n--------\n" in doc
    assert symbol_doc._build_doc("nop", "D.", [], [], []) == (
        "D.\n\nParameters\n----------\n\n\nname : string, optional.\n    Name of the "
        "resulting symbol.\n\nReturns\n-------\nSymbol\n    The result symbol.\n")
    doc = ndarray_doc._build_doc("Reshape", "Reshapes.", ["data"], ["NDArray-or-Symbol"], [""])
    assert "data : NDArray\n\nout : NDArray, optional" in doc and ">>> " in doc
    assert "Returns\n-------\nout : NDArray or list of NDArrays" in doc


def test_get_output_shape():
    from gluonlite.symbol_doc import SymbolDoc
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=5, name="fc")
    assert SymbolDoc.get_output_shape(net, data=(2, 3)) == {"fc_output": (2, 5)}


# -- mx.onnx.mx2onnx --------------------------------------------------------------------
def test_op_translation_helpers():
    from gluonlite.onnx.mx2onnx._op_translations import (_op_translations_opset12 as o12,
                                                         _op_translations_opset13 as o13)
    assert o12.parse_helper({"kernel": "(3, 3)"}, "kernel") == (3, 3)
    assert o12.parse_helper({"kernel": "(3L,)"}, "kernel") == (3,)
    assert o12.parse_helper({}, "kernel", (1, 1)) == (1, 1)
    assert o12.parse_helper({"act": "relu"}, "act", "x") == "x"
    with pytest.raises(AttributeError, match="Malformed"):
        o12.parse_helper({"kernel": "(3, 3)x"}, "kernel")
    assert o12.transform_padding((0, 0, 0, 0, 1, 2, 3, 4)) == [0, 0, 1, 3, 0, 0, 2, 4]
    assert o12.convert_string_to_list("(1L, None, [3])") == [1, None, 3]
    assert o12.get_boolean_attribute_value({"a": "True", "b": "0"}, "a") == 1
    assert o12.get_boolean_attribute_value({"b": "0"}, "b") == 0
    assert o12.supported_ops() == [] and o12.get_converter("FullyConnected") is None
    assert o13.OPSET_VERSION == 13 and "FullyConnected" in o13.supported_ops()
    assert o13.get_converter("FullyConnected") is not None


def test_mx2onnx_graph_and_export(tmp_path):
    pytest.importorskip("onnx")
    import onnx
    from gluonlite.onnx.mx2onnx._export_helper import load_module
    from gluonlite.onnx.mx2onnx._export_model import export_model, get_operator_support
    from gluonlite.onnx.mx2onnx._export_onnx import MXNetGraph
    net = _mlp()
    params = {"fc_weight": mx.nd.ones((3, 4)), "fc_bias": mx.nd.zeros(3)}
    assert "FullyConnected" in get_operator_support() and get_operator_support(12) == []
    assert "FullyConnected" in MXNetGraph.registry_[13]

    in_shapes, outputs = MXNetGraph.get_outputs(net, params, [(2, 4)], "softmax_label",
                                                [onnx.TensorProto.FLOAT])
    assert in_shapes == [(2, 4)]
    assert outputs == {"softmax": {"shape": (2, 3), "dtype": onnx.TensorProto.FLOAT}}
    in_shapes, outputs = MXNetGraph.get_outputs(net, params, [(2, 4)], "softmax_label",
                                                [onnx.TensorProto.FLOAT], dynamic=True)
    assert in_shapes == [(None, None)] and outputs["softmax"]["shape"] == (None, None)

    graph = MXNetGraph().create_onnx_graph_proto(net, params, [(2, 4)],
                                                 [onnx.TensorProto.FLOAT], dynamic=False)
    assert [n.op_type for n in graph.node] == ["Gemm", "Softmax"]
    assert [i.name for i in graph.input] == ["data"]
    with pytest.raises(mx.MXNetError, match="opset 13"):
        MXNetGraph().create_onnx_graph_proto(net, params, [(2, 4)], [1], opset_version=11)
    with pytest.raises(mx.MXNetError, match="per-node conversion"):
        MXNetGraph.register("MyOp")
    with pytest.raises(mx.MXNetError, match="per-node conversion"):
        MXNetGraph.convert_layer({"op": "FullyConnected"})

    arg, aux = MXNetGraph.split_params(net, {**params, "other": mx.nd.ones(1)})
    assert set(arg) == {"fc_weight", "fc_bias"} and aux == {}
    weights = MXNetGraph.convert_weights_to_numpy({"arg:fc_bias": mx.nd.ones(3)})
    assert list(weights) == ["fc_bias"] and isinstance(weights["fc_bias"], np.ndarray)

    prefix = str(tmp_path / "mlp")
    mx.model.save_checkpoint(prefix, 3, net, params, {})
    sym, loaded = load_module(prefix + "-symbol.json", prefix + "-0003.params")
    assert sym.list_arguments() == net.list_arguments() and set(loaded) == set(params)
    with pytest.raises(ValueError, match="invalid"):
        load_module(prefix + "-symbol.json", prefix + "-0009.params")
    path = export_model(prefix + "-symbol.json", prefix + "-0003.params", [(2, 4)],
                        onnx_file_path=str(tmp_path / "m.onnx"))
    assert [n.op_type for n in onnx.load(path).graph.node] == ["Gemm", "Softmax"]
