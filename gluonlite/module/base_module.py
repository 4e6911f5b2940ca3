"""``BaseModule``: the training, scoring and prediction loops every module shares
(``fit``, ``score``, ``predict``, ``iter_predict``), written against the abstract
``bind`` / ``init_params`` / ``forward`` / ``backward`` / ``update`` interface."""
from __future__ import annotations

import logging
import time

from .. import metric as _metric
from .. import ndarray as nd
from ..base import MXNetError
from ..callback import BatchEndParam
from ..initializer import Uniform
from ..io import DataBatch, DataDesc
from ..model import load_params_file, save_params_file

__all__ = ["BaseModule"]


def _as_list(obj) -> list:
    return list(obj) if isinstance(obj, (list, tuple)) else [obj]


def _call_all(callbacks, params) -> None:
    for callback in _as_list(callbacks):
        callback(params)


def _check_input_names(symbol, names, typename: str, throw: bool) -> None:
    """Every name in ``names`` must be an argument of ``symbol`` (MXNet's check)."""
    args = symbol.list_arguments()
    for name in names:
        if name in args:
            continue
        candidates = [arg for arg in args if not arg.endswith(("_weight", "_bias", "_gamma",
                                                               "_beta"))]
        msg = (f"You created Module with Module(..., {typename}_names={list(names)}) but "
               f"input with name '{name}' is not found in symbol.list_arguments(). Did you "
               f"mean one of:\n\t" + "\n\t".join(candidates))
        if throw:
            raise ValueError(msg)
        logging.warning(msg)


def _parse_data_desc(data_names, label_names, data_shapes, label_shapes) -> tuple:
    """``DataDesc`` lists from shapes given as descs or ``(name, shape)`` pairs, checked
    against the module's input names."""
    data_shapes = [x if isinstance(x, DataDesc) else DataDesc(*x) for x in data_shapes]
    _check_names_match(data_names, data_shapes, "data", True)
    if label_shapes is not None:
        label_shapes = [x if isinstance(x, DataDesc) else DataDesc(*x) for x in label_shapes]
        _check_names_match(label_names, label_shapes, "label", False)
    else:
        _check_names_match(label_names, [], "label", False)
    return data_shapes, label_shapes


def _check_names_match(data_names, data_shapes, name: str, throw: bool) -> None:
    actual = [x[0] for x in data_shapes]
    if sorted(data_names) != sorted(actual):
        msg = (f"Data provided by {name}_shapes don't match names specified by {name}_names "
               f"({data_shapes} vs. {list(data_names)})")
        if throw:
            raise ValueError(msg)
        logging.warning(msg)


class BaseModule:
    """Base class of ``Module``, ``BucketingModule`` and ``MutableModule``.

    Parameters
    ----------
    logger : logging.Logger, default logging
    """

    def __init__(self, logger=logging):
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None
        self._total_exec_bytes = 0

    # -- high-level loops -----------------------------------------------------------------
    def forward_backward(self, data_batch) -> None:
        """``forward(is_train=True)`` then ``backward()``."""
        self.forward(data_batch, is_train=True)
        self.backward()

    def score(self, eval_data, eval_metric, num_batch: int | None = None,
              batch_end_callback=None, score_end_callback=None, reset: bool = True,
              epoch: int = 0, sparse_row_id_fn=None) -> list:
        """Evaluate ``eval_metric`` over ``eval_data``; ``[(name, value)]``."""
        assert self.binded and self.params_initialized
        if not isinstance(eval_metric, _metric.EvalMetric):
            eval_metric = _metric.create(eval_metric)
        eval_metric.reset()
        actual_num_batch = 0
        for nbatch, eval_batch in self._forward_batches(eval_data, num_batch, reset,
                                                        sparse_row_id_fn):
            if isinstance(eval_batch, list):
                self.update_metric(eval_metric, [eb.label for eb in eval_batch],
                                   pre_sliced=True)
            else:
                self.update_metric(eval_metric, getattr(eval_batch, "label", None) or [])
            if batch_end_callback is not None:
                _call_all(batch_end_callback, BatchEndParam(
                    epoch=epoch, nbatch=nbatch, eval_metric=eval_metric, locals=locals()))
            actual_num_batch += 1
        if score_end_callback:
            _call_all(score_end_callback, BatchEndParam(
                epoch=epoch, nbatch=actual_num_batch, eval_metric=eval_metric,
                locals=locals()))
        return eval_metric.get_name_value()

    def _forward_batches(self, eval_data, num_batch, reset: bool, sparse_row_id_fn):
        """Yield ``(nbatch, batch)`` after an inference forward of each batch."""
        if reset:
            eval_data.reset()
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                return
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            yield nbatch, eval_batch

    def iter_predict(self, eval_data, num_batch: int | None = None, reset: bool = True,
                     sparse_row_id_fn=None):
        """Yield ``(outputs, nbatch, batch)`` per batch, padding removed."""
        assert self.binded and self.params_initialized
        for nbatch, eval_batch in self._forward_batches(eval_data, num_batch, reset,
                                                        sparse_row_id_fn):
            pad = getattr(eval_batch, "pad", None) or 0
            outputs = [out[0:out.shape[0] - pad] for out in self.get_outputs()]
            yield outputs, nbatch, eval_batch

    def predict(self, eval_data, num_batch: int | None = None, merge_batches: bool = True,
                reset: bool = True, always_output_list: bool = False, sparse_row_id_fn=None):
        """Outputs over ``eval_data`` (an iterator, or one NDArray/NumPy batch).

        Returns the concatenated outputs (a list of them for several outputs or with
        ``always_output_list``); with ``merge_batches=False``, one list per batch.
        """
        assert self.binded and self.params_initialized
        if isinstance(eval_data, nd.NDArray) or hasattr(eval_data, "__array__"):
            if not isinstance(eval_data, nd.NDArray):
                eval_data = nd.array(eval_data)
            self.forward(DataBatch([eval_data]))
            return self.get_outputs()[0]
        if not hasattr(eval_data, "reset"):
            raise ValueError("eval_data must be a DataIter, an NDArray or a NumPy array")
        output_list = [[out.copy() for out in outputs] for outputs, _, _ in
                       self.iter_predict(eval_data, num_batch, reset, sparse_row_id_fn)]
        if not output_list:
            return output_list
        if merge_batches:
            num_outputs = len(output_list[0])
            for out in output_list:
                if len(out) != num_outputs:
                    raise MXNetError("Cannot merge batches, as num of outputs is not the same "
                                     "in mini-batches. Maybe bucketing is used?")
            merged = [nd.concat(*[out[i] for out in output_list], dim=0)
                      for i in range(num_outputs)]
            if num_outputs == 1 and not always_output_list:
                return merged[0]
            return merged
        return output_list

    def fit(self, train_data, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", optimizer="sgd",
            optimizer_params=(("learning_rate", 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=Uniform(0.01), arg_params=None,
            aux_params=None, allow_missing: bool = False, force_rebind: bool = False,
            force_init: bool = False, begin_epoch: int = 0, num_epoch: int | None = None,
            validation_metric=None, monitor=None, sparse_row_id_fn=None) -> None:
        """Train on ``train_data`` for epochs ``begin_epoch`` .. ``num_epoch - 1``
        (MXNet's loop: bind, init_params, init_optimizer, then per batch
        forward_backward, update, update_metric and the callbacks; per epoch the
        training metric, the epoch callbacks with the parameters, and ``score`` on
        ``eval_data``)."""
        assert num_epoch is not None, "please specify number of epochs"
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label,
                  for_training=True, force_rebind=force_rebind)
        if monitor is not None:
            self.install_monitor(monitor)
        self.init_params(initializer=initializer, arg_params=arg_params,
                         aux_params=aux_params, allow_missing=allow_missing,
                         force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                            optimizer_params=optimizer_params)
        if validation_metric is None:
            validation_metric = eval_metric
        if not isinstance(eval_metric, _metric.EvalMetric):
            eval_metric = _metric.create(eval_metric)
        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            self._begin_epoch(epoch, train_data)
            name_values = self._fit_epoch(train_data, eval_metric, epoch, batch_end_callback,
                                          monitor, sparse_row_id_fn)
            for name, val in name_values:
                self.logger.info("Epoch[%d] Train-%s=%f", epoch, name, val)
            self.logger.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)
            # sync the devices' parameters into the module's copy
            arg_params, aux_params = self.get_params()
            self.set_params(arg_params, aux_params)
            if epoch_end_callback is not None:
                for callback in _as_list(epoch_end_callback):
                    callback(epoch, self.symbol, arg_params, aux_params)
            if eval_data:
                res = self.score(eval_data, validation_metric,
                                 score_end_callback=eval_end_callback,
                                 batch_end_callback=eval_batch_end_callback, epoch=epoch)
                for name, val in res:
                    self.logger.info("Epoch[%d] Validation-%s=%f", epoch, name, val)
            self._finish_epoch(train_data)

    def _begin_epoch(self, epoch: int, train_data) -> None:
        """Work at the start of each ``fit`` epoch, before its batches (none here;
        ``SVRGModule`` computes its full gradients)."""

    def _finish_epoch(self, train_data) -> None:
        """Work at the end of each ``fit`` epoch: rewind ``train_data``."""
        train_data.reset()

    def _fit_epoch(self, train_data, eval_metric, epoch, batch_end_callback, monitor,
                   sparse_row_id_fn) -> list:
        data_iter = iter(train_data)
        next_batch = next(data_iter)
        nbatch = 0
        while True:
            data_batch = next_batch
            if monitor is not None:
                monitor.tic()
            self.forward_backward(data_batch)
            self.update()
            if isinstance(data_batch, list):
                self.update_metric(eval_metric, [db.label for db in data_batch],
                                   pre_sliced=True)
            else:
                self.update_metric(eval_metric, data_batch.label)
            try:
                next_batch = next(data_iter)
                self.prepare(next_batch, sparse_row_id_fn=sparse_row_id_fn)
                end_of_epoch = False
            except StopIteration:
                end_of_epoch = True
            if monitor is not None:
                monitor.toc_print()
            if end_of_epoch:
                name_values = eval_metric.get_global_name_value()
            if batch_end_callback is not None:
                _call_all(batch_end_callback, BatchEndParam(
                    epoch=epoch, nbatch=nbatch, eval_metric=eval_metric, locals=locals()))
            nbatch += 1
            if end_of_epoch:
                return name_values

    # -- parameters -------------------------------------------------------------------------
    def set_params(self, arg_params, aux_params, allow_missing: bool = False,
                   force_init: bool = True, allow_extra: bool = False) -> None:
        """Assign parameter values (``init_params`` without an initializer)."""
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init,
                         allow_extra=allow_extra)

    def save_params(self, fname: str) -> None:
        """Write the parameters with ``arg:``/``aux:`` keys (MXNet's format)."""
        save_params_file(fname, *self.get_params())

    def load_params(self, fname: str) -> None:
        """Read parameters written by :meth:`save_params` (or MXNet)."""
        self.set_params(*load_params_file(fname, strict=True))

    def install_monitor(self, mon) -> None:
        """Attach an ``mx.mon.Monitor`` (modules that run networks override this)."""
        raise MXNetError(f"{type(self).__name__} does not support install_monitor")

    def prepare(self, data_batch, sparse_row_id_fn=None) -> None:
        """Prepare for a batch (row-sparse pulls in MXNet; nothing to do for dense)."""

    @property
    def symbol(self):
        """The module's symbol."""
        return self._symbol
