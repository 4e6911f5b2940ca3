"""``mx.notebook.callback``: training callbacks that log metrics into pandas
DataFrames (:class:`PandasLogger`) and draw them as live bokeh charts in a Jupyter
notebook (:class:`LiveLearningCurve`, :class:`LiveTimeSeries`).

The callbacks take what ``Module.fit``/``model.FeedForward.fit`` hand to their
``batch_end_callback``/``eval_end_callback`` (a ``BatchEndParam``: ``epoch``,
``nbatch``, ``eval_metric``); ``callback_args()`` gives the keyword arguments of
``fit`` that install them, :func:`args_wrapper` those of several.

pandas and bokeh are imported when a logger or chart is made, so this module imports
without them (as MXNet's does); making one without its package raises ``ImportError``
naming the package to install.
"""
from __future__ import annotations

import datetime
import time
from collections import defaultdict

__all__ = ["PandasLogger", "LiveBokehChart", "LiveTimeSeries", "LiveLearningCurve",
           "args_wrapper"]


def _pandas():
    try:
        import pandas
    except ImportError as err:
        raise ImportError("mx.notebook.callback.PandasLogger needs pandas "
                          "(pip install pandas)") from err
    return pandas


def _bokeh():
    """``(bokeh.io, bokeh.plotting)``."""
    try:
        import bokeh.io
        import bokeh.plotting
    except ImportError as err:
        raise ImportError("mx.notebook.callback's live charts need bokeh "
                          "(pip install bokeh)") from err
    return bokeh.io, bokeh.plotting


def _metrics_of(param) -> dict:
    """The metric values of a ``BatchEndParam`` by name, resetting its metric."""
    if param.eval_metric is None:
        return {}
    metrics = dict(param.eval_metric.get_name_value())
    param.eval_metric.reset()
    return metrics


def _add_new_columns(dataframe, metrics: dict) -> None:
    """Add to ``dataframe`` an empty column for each key of ``metrics`` it lacks."""
    for column in set(metrics) - set(dataframe.columns):
        dataframe[column] = None


def _extend(base: list, new: list) -> None:
    """Append to ``base`` the items of the longer ``new`` past ``len(base)``."""
    base.extend(new[len(base):])


class PandasLogger:
    """Logs a training run into three pandas DataFrames: ``train`` (every
    ``frequent`` batches), ``eval`` (each evaluation) and ``epoch`` (timings).

    Parameters
    ----------
    batch_size : int
        The batch size of the data.
    frequent : int, default 50
        How many training batches between two ``train`` rows.
    """

    def __init__(self, batch_size: int, frequent: int = 50):
        pd = _pandas()
        self.batch_size = batch_size
        self.frequent = frequent
        self._dataframes = {"train": pd.DataFrame(), "eval": pd.DataFrame(),
                            "epoch": pd.DataFrame()}
        self.last_time = time.time()
        self.start_time = datetime.datetime.now()
        self.last_epoch_time = datetime.datetime.now()

    @property
    def train_df(self):
        """The training rows (one every ``frequent`` batches)."""
        return self._dataframes["train"]

    @property
    def eval_df(self):
        """The evaluation rows (one per evaluation)."""
        return self._dataframes["eval"]

    @property
    def epoch_df(self):
        """The epoch rows (``elapsed``, ``epoch_time``)."""
        return self._dataframes["epoch"]

    @property
    def all_dataframes(self) -> dict:
        """The three DataFrames by name (``train``, ``eval``, ``epoch``)."""
        return self._dataframes

    def elapsed(self) -> datetime.timedelta:
        """Time since the logger was made."""
        return datetime.datetime.now() - self.start_time

    def append_metrics(self, metrics: dict, df_name: str) -> None:
        """Append ``metrics`` (column to value) as a row of DataFrame ``df_name``,
        adding the columns it lacks."""
        dataframe = self._dataframes[df_name]
        _add_new_columns(dataframe, metrics)
        dataframe.loc[len(dataframe)] = _pandas().Series(metrics)

    def train_cb(self, param) -> None:
        """``batch_end_callback``: a ``train`` row every ``frequent`` batches."""
        if param.nbatch % self.frequent == 0:
            self._process_batch(param, "train")

    def eval_cb(self, param) -> None:
        """``eval_end_callback``: an ``eval`` row."""
        self._process_batch(param, "eval")

    def _process_batch(self, param, df_name: str) -> None:
        """A row of the metrics of ``param`` plus speed and position columns."""
        now = time.time()
        metrics = _metrics_of(param)
        try:
            speed = self.frequent / (now - self.last_time)
        except ZeroDivisionError:
            speed = float("inf")
        # MXNet's column names, which it swaps: batches/s holds records/s and back
        metrics["batches_per_sec"] = speed * self.batch_size
        metrics["records_per_sec"] = speed
        metrics["elapsed"] = self.elapsed()
        metrics["minibatch_count"] = param.nbatch
        metrics["epoch"] = param.epoch
        self.append_metrics(metrics, df_name)
        self.last_time = now

    def epoch_cb(self, *args) -> None:
        """``epoch_end_callback``: an ``epoch`` row with the time since the start and
        the time the epoch took (the callback's arguments are not used)."""
        now = datetime.datetime.now()
        self.append_metrics({"elapsed": self.elapsed(),
                             "epoch_time": now - self.last_epoch_time}, "epoch")
        self.last_epoch_time = now

    def callback_args(self) -> dict:
        """Keyword arguments of ``fit`` installing this logger's callbacks:
        ``model.fit(train, eval_data=val, **logger.callback_args())``."""
        return {"batch_end_callback": self.train_cb, "eval_end_callback": self.eval_cb,
                "epoch_end_callback": self.epoch_cb}


class LiveBokehChart:
    """Base of the charts drawn in a notebook and updated as training runs.

    Subclasses define :meth:`setup_chart` (draw, return the notebook handle) and
    :meth:`update_chart_data`.  The chart is pushed to the notebook at most every
    ``display_freq`` seconds on batches and always after an evaluation.

    Parameters
    ----------
    pandas_logger : PandasLogger, optional
        Where data is collected; made (``batch_size``, ``frequent``) on first use of
        ``self.pandas_logger`` when not given.
    metric_name : str
        The metric drawn.
    display_freq : float, default 10
        Seconds between two pushes on batch ends.
    batch_size : int, optional
    frequent : int, default 50
    """

    def __init__(self, pandas_logger: PandasLogger | None, metric_name: str | None,
                 display_freq: float = 10, batch_size: int | None = None, frequent: int = 50):
        bokeh_io, _ = _bokeh()
        self._pandas_logger = pandas_logger
        self._logger_args = (batch_size, frequent)
        self.display_freq = display_freq
        self.last_update = time.time()
        self.metric_name = metric_name
        bokeh_io.output_notebook()
        self.handle = self.setup_chart()

    @property
    def pandas_logger(self) -> PandasLogger:
        """The :class:`PandasLogger` given, or one made on first access."""
        if self._pandas_logger is None:
            batch_size, frequent = self._logger_args
            self._pandas_logger = PandasLogger(batch_size=batch_size, frequent=frequent)
        return self._pandas_logger

    @pandas_logger.setter
    def pandas_logger(self, logger: PandasLogger) -> None:
        self._pandas_logger = logger

    def setup_chart(self):
        """Draw the chart and return its notebook handle (subclasses)."""
        raise NotImplementedError("Incomplete base class: LiveBokehChart must be sub-classed")

    def update_chart_data(self):
        """Bring the chart's data up to date (subclasses)."""
        raise NotImplementedError("Incomplete base class: LiveBokehChart must be sub-classed")

    def interval_elapsed(self) -> bool:
        """Whether more than ``display_freq`` seconds passed since the last push."""
        return time.time() - self.last_update > self.display_freq

    def _push_render(self) -> None:
        _bokeh()[0].push_notebook(handle=self.handle)
        self.last_update = time.time()

    def _do_update(self) -> None:
        self.update_chart_data()
        self._push_render()

    def batch_cb(self, param) -> None:
        """``batch_end_callback``: update when ``display_freq`` seconds have passed."""
        if self.interval_elapsed():
            self._do_update()

    def eval_cb(self, param) -> None:
        """``eval_end_callback``: always update."""
        self._do_update()

    def callback_args(self) -> dict:
        """Keyword arguments of ``fit`` installing this chart's callbacks."""
        return {"batch_end_callback": self.batch_cb, "eval_end_callback": self.eval_cb}


class LiveTimeSeries(LiveBokehChart):
    """A line of values against the time elapsed since the chart was made.

    Parameters
    ----------
    **fig_params
        Passed to ``bokeh.plotting.figure``.
    """

    def __init__(self, **fig_params):
        _, plotting = _bokeh()
        self.fig = plotting.figure(x_axis_type="datetime", x_axis_label="Elapsed time",
                                   **fig_params)
        super().__init__(None, None)

    def setup_chart(self):
        self.start_time = datetime.datetime.now()
        self.x_axis_val: list = []
        self.y_axis_val: list = []
        self.fig.line(self.x_axis_val, self.y_axis_val)
        return _bokeh()[1].show(self.fig, notebook_handle=True)

    def elapsed(self) -> datetime.timedelta:
        """Time since the chart was drawn."""
        return datetime.datetime.now() - self.start_time

    def update_chart_data(self, value=None) -> None:
        """Add the point ``(elapsed(), value)`` and push the chart.  Without a value
        (the batch and eval callbacks, which push after it) there is nothing to add."""
        if value is None:
            return
        self.x_axis_val.append(self.elapsed())
        self.y_axis_val.append(value)
        self._push_render()


class LiveLearningCurve(LiveBokehChart):
    """The training and validation values of one metric against training time.

    Training values are taken every ``frequent`` batches, validation values at each
    evaluation.

    Parameters
    ----------
    metric_name : str
        The metric drawn (a name ``eval_metric.get_name_value()`` gives).
    display_freq : float, default 10
        Seconds between two pushes on batch ends.
    frequent : int, default 50
        Batches between two training points.
    """

    def __init__(self, metric_name: str, display_freq: float = 10, frequent: int = 50):
        self.frequent = frequent
        self.start_time = datetime.datetime.now()
        self._data = {"train": {"elapsed": []}, "eval": {"elapsed": []}}
        super().__init__(None, metric_name, display_freq, frequent)

    def setup_chart(self):
        _, plotting = _bokeh()
        self.fig = plotting.figure(x_axis_type="datetime", x_axis_label="Training time")
        self.x_axis_val1: list = []
        self.y_axis_val1: list = []
        self.train1 = self.fig.line(self.x_axis_val1, self.y_axis_val1, line_dash="dotted",
                                    alpha=0.3, legend_label="train")
        self.train2 = self.fig.scatter(self.x_axis_val1, self.y_axis_val1, size=1.5,
                                       line_alpha=0.3, fill_alpha=0.3, legend_label="train")
        self.train2.visible = False  # shown once there are many points
        self.x_axis_val2: list = []
        self.y_axis_val2: list = []
        self.valid1 = self.fig.line(self.x_axis_val2, self.y_axis_val2, line_color="green",
                                    line_width=2, legend_label="validation")
        self.valid2 = self.fig.scatter(self.x_axis_val2, self.y_axis_val2, line_color="green",
                                       line_width=2)
        self.fig.legend.location = "bottom_right"
        self.fig.yaxis.axis_label = self.metric_name
        return plotting.show(self.fig, notebook_handle=True)

    def batch_cb(self, param) -> None:
        """A training point every ``frequent`` batches; a push when due."""
        if param.nbatch % self.frequent == 0:
            self._process_batch(param, "train")
        if self.interval_elapsed():
            self._do_update()

    def eval_cb(self, param) -> None:
        """A validation point and a push."""
        self._process_batch(param, "eval")
        self._do_update()

    def _process_batch(self, param, df_name: str) -> None:
        metrics = _metrics_of(param)
        metrics["elapsed"] = datetime.datetime.now() - self.start_time
        data = self._data[df_name]
        for key, value in metrics.items():
            data.setdefault(key, []).append(value)

    def update_chart_data(self) -> None:
        """Copy the points collected since the last update into the chart; past ten
        training points the training curve is drawn as dots."""
        for data, xs, ys in ((self._data["train"], self.x_axis_val1, self.y_axis_val1),
                             (self._data["eval"], self.x_axis_val2, self.y_axis_val2)):
            if data["elapsed"]:
                _extend(xs, data["elapsed"])
                _extend(ys, data[self.metric_name])
        if len(self.x_axis_val1) > 10:
            self.train1.visible = False
            self.train2.visible = True


def args_wrapper(*args) -> dict:
    """The ``fit`` keyword arguments of several callback objects (``PandasLogger``,
    ``LiveLearningCurve``, ...), each a list of their callbacks:
    ``model.fit(train, **args_wrapper(logger, chart))``."""
    out = defaultdict(list)
    for callback in args:
        for key, value in callback.callback_args().items():
            out[key].append(value)
    return dict(out)
