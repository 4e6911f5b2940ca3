"""``mx.model.FeedForward``: MXNet 1.x's deprecated estimator for single-input,
single-output networks (``fit``, ``predict``, ``score``, ``save``/``load``, ``create``),
kept because MXNet 1.9.1 still ships it and its own training tests use it.  Here it is an
adapter over :class:`gluonlite.module.Module`, so it trains on the one engine."""
from __future__ import annotations

import logging
import warnings

import numpy as np

from .. import callback  # (the module: callback imports this package while it loads)
from .. import metric
from .. import ndarray as nd
from .. import symbol as sym
from ..base import MXNetError
from ..context import Context, cpu
from ..initializer import Uniform
from ..io import NDArrayIter
from .checkpoint import load_checkpoint, save_checkpoint

__all__ = ["FeedForward"]


class FeedForward:
    """A feed-forward model trained and run through a :class:`~gluonlite.module.Module`.

    Parameters
    ----------
    symbol : Symbol or callable
        The network (a callable ``symbol(bucket_key)`` is refused: MXNet never finished it).
    ctx : Context or list of Context, optional
        Devices; a batch is split over them (default ``cpu()``).
    num_epoch : int, optional
        Epochs ``fit`` trains for.
    epoch_size : int, optional
        Accepted for compatibility; epochs run over the whole iterator.
    optimizer : str or Optimizer, default 'sgd'
    initializer : Initializer, default ``Uniform(0.01)``
    numpy_batch_size : int, default 128
        Batch size when ``X`` is a NumPy array or NDArray.
    arg_params, aux_params : dict of str to NDArray, optional
        Parameters to start from (or to predict with).
    allow_extra_params : bool, default False
        Accept parameters the symbol does not use.
    begin_epoch : int, default 0
    **kwargs
        Optimizer arguments (``learning_rate``, ``wd``, ``momentum``, ...); as MXNet,
        ``rescale_grad`` defaults to ``1 / batch_size``.
    """

    def __init__(self, symbol, ctx=None, num_epoch: int | None = None,
                 epoch_size: int | None = None, optimizer="sgd", initializer=None,
                 numpy_batch_size: int = 128, arg_params: dict | None = None,
                 aux_params: dict | None = None, allow_extra_params: bool = False,
                 begin_epoch: int = 0, **kwargs) -> None:
        warnings.warn("mxnet.model.FeedForward has been deprecated. "
                      "Please use mxnet.mod.Module instead.", DeprecationWarning, stacklevel=2)
        if not isinstance(symbol, sym.Symbol):
            raise MXNetError("FeedForward: symbol must be a Symbol (symbol generators are "
                             "not supported; use BucketingModule)")
        self.symbol = symbol
        self.arg_params = arg_params
        self.aux_params = aux_params
        self.allow_extra_params = allow_extra_params
        if ctx is None:
            ctx = [cpu()]
        elif isinstance(ctx, Context):
            ctx = [ctx]
        self.ctx = list(ctx)
        self.num_epoch = num_epoch
        self.epoch_size = epoch_size
        self.kwargs = dict(kwargs)
        self.optimizer = optimizer
        self.initializer = initializer if initializer is not None else Uniform(0.01)
        self.numpy_batch_size = numpy_batch_size
        self.begin_epoch = begin_epoch
        self._check_arguments()

    # -- pickling: parameters travel as NDArrays; no bound module -----------------
    def __getstate__(self) -> dict:
        return dict(self.__dict__)

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def _check_arguments(self) -> None:
        names = self.symbol.list_arguments()
        if len(set(names)) != len(names):
            raise MXNetError(f"FeedForward: duplicated argument names in {names}")
        if self.allow_extra_params:
            if self.arg_params:
                keep = set(names)
                self.arg_params = {k: v for k, v in self.arg_params.items() if k in keep}
            if self.aux_params:
                keep = set(self.symbol.list_auxiliary_states())
                self.aux_params = {k: v for k, v in self.aux_params.items() if k in keep}

    def _init_iter(self, X, y, is_train: bool):
        """``X`` as a data iterator (NumPy arrays and NDArrays are wrapped)."""
        if isinstance(X, (np.ndarray, nd.NDArray)):
            if y is None:
                if is_train:
                    raise ValueError("y must be specified when X is numpy.ndarray")
                y = np.zeros(X.shape[0])
            if not isinstance(y, (np.ndarray, nd.NDArray)):
                raise TypeError("y must be ndarray when X is numpy.ndarray")
            if X.shape[0] != y.shape[0]:
                raise ValueError("The numbers of data points and labels not equal")
            if y.ndim == 2 and y.shape[1] == 1:
                y = y.flatten()
            if y.ndim != 1:
                raise ValueError("Label must be 1D or 2D (with 2nd dimension being 1)")
            batch_size = min(X.shape[0], self.numpy_batch_size)
            if is_train:
                return NDArrayIter(X, y, batch_size, shuffle=True,
                                   last_batch_handle="roll_over")
            return NDArrayIter(X, y, batch_size, shuffle=False)
        if not hasattr(X, "provide_data"):
            raise TypeError("X must be DataIter, NDArray or numpy.ndarray")
        return X

    def _module(self, data_iter, for_training: bool, logger=None, ctx=None):
        from ..module import Module  # module imports this package: a real cycle
        args = self.symbol.list_arguments()
        data_shapes = list(data_iter.provide_data)
        label_shapes = [d for d in (getattr(data_iter, "provide_label", None) or [])
                        if d[0] in args]
        label_names = [d[0] for d in label_shapes]
        if not for_training and self.arg_params is not None:
            # as MXNet's predictor: inputs without a value (a loss layer's label when the
            # iterator has none) are bound to zeros rather than asked for
            known = set(self.arg_params) | {d[0] for d in data_shapes} | set(label_names)
            label_names += [a for a in args if a not in known]
        mod = Module(self.symbol, data_names=[d[0] for d in data_shapes],
                     label_names=label_names,
                     context=self.ctx if ctx is None else ctx,
                     logger=logger if logger is not None else logging)
        mod.bind(data_shapes=data_shapes, label_shapes=label_shapes or None,
                 for_training=for_training)
        return mod

    def _bound_for_inference(self, data_iter):
        if self.arg_params is None:
            raise MXNetError("FeedForward: the model has no parameters; fit or load it first")
        # as MXNet, inference runs on the first device only (a split batch could
        # round differently from one that is not)
        mod = self._module(data_iter, for_training=False, ctx=[self.ctx[0]])
        mod.set_params(self.arg_params, self.aux_params or {},
                       allow_extra=self.allow_extra_params)
        return mod

    def predict(self, X, num_batch: int | None = None, return_data: bool = False,
                reset: bool = True):
        """The outputs over ``X`` (padding removed) as NumPy arrays: one array for one
        output, else a list; with ``return_data`` also the data and labels."""
        X = self._init_iter(X, None, is_train=False)
        if reset:
            X.reset()
        mod = self._bound_for_inference(X)
        outputs, datas, labels = None, [], []
        for i, batch in enumerate(X):
            if num_batch is not None and i == num_batch:
                break
            mod.forward(batch, is_train=False)
            real = batch.data[0].shape[0] - (batch.pad or 0)
            outs = [o[:real].asnumpy() for o in mod.get_outputs()]
            outputs = [[] for _ in outs] if outputs is None else outputs
            for acc, o in zip(outputs, outs):
                acc.append(o)
            if return_data:
                datas.append([d[:real].asnumpy() for d in batch.data])
                labels.append([lb[:real].asnumpy() for lb in (batch.label or [])])
        if outputs is None:
            raise MXNetError("FeedForward.predict: the data iterator is empty")
        outputs = [np.concatenate(o) for o in outputs]
        if return_data:
            data = [np.concatenate(parts) for parts in zip(*datas)]
            label = [np.concatenate(parts) for parts in zip(*labels)]
            outputs = outputs[0] if len(outputs) == 1 else outputs
            return (outputs, data[0] if len(data) == 1 else data,
                    label[0] if len(label) == 1 else label)
        return outputs[0] if len(outputs) == 1 else outputs

    def score(self, X, eval_metric="acc", num_batch: int | None = None,
              batch_end_callback=None, reset: bool = True) -> float:
        """``eval_metric`` over ``X`` (its first value)."""
        X = self._init_iter(X, None, is_train=False)
        if reset:
            X.reset()
        mod = self._bound_for_inference(X)
        eval_metric = metric.create(eval_metric)
        res = mod.score(X, eval_metric, num_batch=num_batch,
                        batch_end_callback=batch_end_callback, reset=False)
        return res[0][1]

    def fit(self, X, y=None, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", logger=None, work_load_list=None,
            monitor=None, eval_end_callback=None, eval_batch_end_callback=None) -> None:
        """Train for ``num_epoch`` epochs from ``begin_epoch`` (callbacks as Module's)."""
        data = self._init_iter(X, y, is_train=True)
        if isinstance(eval_data, (tuple, list)) and len(eval_data) == 2:
            eval_data = self._init_iter(eval_data[0], eval_data[1], is_train=False)
        elif eval_data is not None:
            eval_data = self._init_iter(eval_data, None, is_train=False)
        if self.num_epoch is None:
            raise MXNetError("FeedForward.fit: num_epoch is not set")
        params = dict(self.kwargs)
        if isinstance(self.optimizer, str) and "rescale_grad" not in params:
            params["rescale_grad"] = 1.0 / data.batch_size
        mod = self._module(data, for_training=True, logger=logger)
        if eval_end_callback is None:
            eval_end_callback = callback.LogValidationMetricsCallback()
        mod.fit(data, eval_data=eval_data, eval_metric=eval_metric,
                epoch_end_callback=epoch_end_callback, batch_end_callback=batch_end_callback,
                kvstore=kvstore, optimizer=self.optimizer,
                optimizer_params=params if isinstance(self.optimizer, str) else (),
                eval_end_callback=eval_end_callback,
                eval_batch_end_callback=eval_batch_end_callback,
                initializer=self.initializer, arg_params=self.arg_params,
                aux_params=self.aux_params, allow_missing=True,
                begin_epoch=self.begin_epoch, num_epoch=self.num_epoch, monitor=monitor)
        self.arg_params, self.aux_params = mod.get_params()
        logging.debug("FeedForward: trained %d epochs", self.num_epoch - self.begin_epoch)

    def save(self, prefix: str, epoch: int | None = None, remove_amp_cast: bool = True) -> None:
        """Write ``prefix-symbol.json`` and ``prefix-%04d.params`` (``epoch`` defaults to
        ``num_epoch``)."""
        if epoch is None:
            epoch = self.num_epoch
        if epoch is None:
            raise MXNetError("FeedForward.save: give the epoch (num_epoch is not set)")
        save_checkpoint(prefix, epoch, self.symbol, self.arg_params, self.aux_params or {},
                        remove_amp_cast=remove_amp_cast)

    @staticmethod
    def load(prefix: str, epoch: int, ctx=None, **kwargs) -> "FeedForward":
        """A model from a checkpoint (``begin_epoch`` = ``epoch``)."""
        symbol, arg_params, aux_params = load_checkpoint(prefix, epoch)
        return FeedForward(symbol, ctx=ctx, arg_params=arg_params, aux_params=aux_params,
                           begin_epoch=epoch, **kwargs)

    @staticmethod
    def create(symbol, X, y=None, ctx=None, num_epoch: int | None = None,
               epoch_size: int | None = None, optimizer="sgd", initializer=None,
               eval_data=None, eval_metric="acc", epoch_end_callback=None,
               batch_end_callback=None, kvstore="local", logger=None, work_load_list=None,
               eval_end_callback=None, eval_batch_end_callback=None,
               **kwargs) -> "FeedForward":
        """Make a model and ``fit`` it."""
        model = FeedForward(symbol, ctx=ctx, num_epoch=num_epoch, epoch_size=epoch_size,
                            optimizer=optimizer, initializer=initializer, **kwargs)
        model.fit(X, y, eval_data=eval_data, eval_metric=eval_metric,
                  epoch_end_callback=epoch_end_callback,
                  batch_end_callback=batch_end_callback, kvstore=kvstore, logger=logger,
                  work_load_list=work_load_list, eval_end_callback=eval_end_callback,
                  eval_batch_end_callback=eval_batch_end_callback)
        return model
