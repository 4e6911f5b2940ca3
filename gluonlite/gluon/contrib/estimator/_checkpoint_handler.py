"""``CheckpointHandler``: save (and resume from) parameters and trainer states."""
from __future__ import annotations

import os
import warnings
from typing import Optional

import numpy as np

from . import _checkpoint_files as files
from ._events import BatchEnd, EpochEnd, TrainBegin
from ._monitor import improvement_op
from ....metric import EvalMetric

__all__ = ["CheckpointHandler"]


class CheckpointHandler(TrainBegin, BatchEnd, EpochEnd):
    """Save the network's parameters (``.params``) and the trainer's states
    (``.states``) every ``epoch_period`` epochs or ``batch_period`` batches, as
    ``{model_prefix}-epoch{E}batch{B}``, keeping the newest ``max_checkpoints``; save the
    graph as ``{model_prefix}-symbol.json`` after the first batch when the network is a
    hybridized ``HybridBlock``.

    Parameters
    ----------
    model_dir : str
        Directory of the files (created when missing).
    model_prefix : str, default 'model'
        File name prefix.
    monitor : EvalMetric, optional
        Metric deciding the best model (needed for ``save_best``).
    verbose : int, default 0
        1: log every save.
    save_best : bool, default False
        Also keep ``{model_prefix}-best.params``/``.states`` of the best ``monitor`` value.
    mode : {'auto', 'min', 'max'}, default 'auto'
        Direction in which ``monitor`` improves (``'auto'``: up for accuracy and F1).
    epoch_period : int, default 1
        Save every this many epochs (None: not per epoch).
    batch_period : int, optional
        Save every this many batches.
    max_checkpoints : int, default 5
        Checkpoints kept (the best one not counted); older ones are deleted.
    resume_from_checkpoint : bool, default False
        Load the newest checkpoint in ``model_dir`` at train begin and train only the
        remaining epochs or batches.

    Raises
    ------
    ValueError
        When ``save_best`` is set without an ``EvalMetric`` ``monitor``.
    """

    def __init__(self, model_dir: str, model_prefix: str = "model",
                 monitor: Optional[EvalMetric] = None, verbose: int = 0,
                 save_best: bool = False, mode: str = "auto",
                 epoch_period: Optional[int] = 1, batch_period: Optional[int] = None,
                 max_checkpoints: int = 5, resume_from_checkpoint: bool = False):
        self.monitor = monitor
        self.verbose = verbose
        os.makedirs(model_dir, exist_ok=True)
        self.model_dir = model_dir
        self.model_prefix = model_prefix
        self.save_best = save_best
        if save_best and not isinstance(monitor, EvalMetric):
            raise ValueError("To save best model only, please provide one of the metric "
                             "objects from estimator.train_metrics and estimator.val_metrics "
                             "as monitor.")
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.current_batch = 0
        self.current_epoch = 0
        self.max_checkpoints = max_checkpoints
        self.resume_from_checkpoint = resume_from_checkpoint
        self.saved_checkpoints = []
        self.trained_epoch = -1
        self.trained_batch = -1
        if save_best:
            self.monitor_op = improvement_op(monitor, mode, "ModelCheckpoint")
            self.best = np.inf if self.monitor_op is np.less else -np.inf

    # ---- events -----------------------------------------------------------------------
    def train_begin(self, estimator, *args, **kwargs) -> None:
        self.current_epoch = 0
        self.current_batch = 0
        if self.save_best:
            self.best = np.inf if self.monitor_op is np.less else -np.inf
        if self.resume_from_checkpoint:
            error_msg = ("To use resume from checkpoint, you must only specify the same type "
                         "of period you used for training.For example, if you are training "
                         "based on number of epochs,you must save only based on epochs, and "
                         "set batch_period to None.")
            if estimator.max_batch:
                assert self.batch_period, error_msg
                assert not self.epoch_period, error_msg
            if estimator.max_epoch:
                assert self.epoch_period, error_msg
                assert not self.batch_period, error_msg
            self._resume_from_checkpoint(estimator)

    def batch_end(self, estimator, *args, **kwargs) -> None:
        if self.current_batch == 0:
            self._save_symbol(estimator)
        if self.batch_period and (self.current_batch + 1) % self.batch_period == 0:
            self._save_checkpoint(estimator)
        self.current_batch += 1

    def epoch_end(self, estimator, *args, **kwargs) -> None:
        if self.epoch_period and (self.current_epoch + 1) % self.epoch_period == 0:
            self._save_checkpoint(estimator)
        self.current_epoch += 1

    # ---- saving -----------------------------------------------------------------------
    def _save_checkpoint(self, estimator) -> None:
        if self.resume_from_checkpoint:
            epoch = self.current_epoch + self.trained_epoch + 1
            batch = self.current_batch + self.trained_batch + (0 if estimator.max_epoch else 1)
        else:
            epoch, batch = self.current_epoch, self.current_batch
        prefix = files.checkpoint_name(self.model_prefix, epoch, batch)
        self._save_params_and_trainer(estimator, prefix)
        if self.verbose > 0:
            estimator.logger.info("[Epoch %d] CheckpointHandler: trained total %d batches, "
                                  "saving model at %s with prefix: %s", self.current_epoch,
                                  self.current_batch + 1, self.model_dir, prefix)
        if self.save_best:
            self._save_if_best(estimator)

    def _save_if_best(self, estimator) -> None:
        name, value = self.monitor.get()
        if np.isnan(value):
            warnings.warn(RuntimeWarning(
                f"Skipping save best because {name} is not updated, make sure you pass one "
                "of the metric objects estimator.train_metrics and estimator.val_metrics as "
                "monitor"))
        elif self.monitor_op(value, self.best):
            prefix = self.model_prefix + "-best"
            self._save_params_and_trainer(estimator, prefix)
            if self.verbose > 0:
                estimator.logger.info("[Epoch %d] CheckpointHandler: %s improved from %0.5f "
                                      "to %0.5f, updating best model at %s with prefix: %s",
                                      self.current_epoch, name, self.best, value,
                                      self.model_dir, prefix)
            self.best = value
        elif self.verbose > 0:
            estimator.logger.info("[Epoch %d] CheckpointHandler: %s did not improve from "
                                  "%0.5f, skipping updating best model", self.current_epoch,
                                  name, self.best)

    def _save_symbol(self, estimator) -> None:
        symbol_file = os.path.join(self.model_dir, self.model_prefix + "-symbol.json")
        graph = getattr(estimator.net, "_cached_graph", None)
        if graph:
            files.save_atomically(graph[1].save, symbol_file)
        else:
            estimator.logger.info(
                "Model architecture(symbol file) is not saved, please use HybridBlock to "
                "construct your model, and call net.hybridize() before passing to Estimator "
                "in order to save model architecture as %s.", symbol_file)

    def _save_params_and_trainer(self, estimator, file_prefix: str) -> None:
        base = os.path.join(self.model_dir, file_prefix)
        files.save_atomically(estimator.net.save_parameters, base + ".params")
        files.save_atomically(estimator.trainer.save_states, base + ".states")
        if file_prefix != self.model_prefix + "-best":
            if file_prefix in self.saved_checkpoints:
                self.saved_checkpoints.remove(file_prefix)
            self.saved_checkpoints.append(file_prefix)
        while len(self.saved_checkpoints) > self.max_checkpoints:
            files.remove_checkpoint(self.model_dir, self.saved_checkpoints.pop(0))

    # ---- resuming ---------------------------------------------------------------------
    def _resume_from_checkpoint(self, estimator) -> None:
        found = files.find_checkpoints(self.model_dir, self.model_prefix)
        self.saved_checkpoints = [files.checkpoint_name(self.model_prefix, e, b)
                                  for e, b in found]
        self.trained_epoch, self.trained_batch = found[-1] if found else (-1, -1)
        if not found:
            estimator.logger.info(
                "CheckpointHandler: No checkpoint found, training from scratch for "
                + ("%d batches" % estimator.max_batch if estimator.max_batch
                   else "%d epochs" % estimator.max_epoch))
            return
        msg = ("CheckpointHandler: Checkpoint resumed from epoch %d batch %d, continue to "
               "train for " % (self.trained_epoch, self.trained_batch))
        if estimator.max_epoch:
            if self.trained_epoch >= estimator.max_epoch - 1:
                raise ValueError(
                    "Found checkpoint with maximum number of epoch %d reached, please specify "
                    "resume_from_checkpoint=False (default value) if you wan to train from "
                    "scratch." % estimator.max_epoch)
            estimator.max_epoch = estimator.max_epoch - self.trained_epoch - 1
            msg += "%d epochs " % estimator.max_epoch
        if estimator.max_batch:
            if self.trained_batch >= estimator.max_batch - 1:
                raise ValueError(
                    "Found checkpoint with maximum number of batch %d reached, please specify"
                    "resume_from_checkpoint=False (default value) if you wan to train from "
                    "scratch." % self.trained_batch)
            estimator.max_batch = estimator.max_batch - self.trained_batch - 1
            msg += "%d batches " % estimator.max_batch
        base = os.path.join(self.model_dir, files.checkpoint_name(
            self.model_prefix, self.trained_epoch, self.trained_batch))
        for ext in (".params", ".states"):
            assert os.path.exists(base + ext), \
                "Failed to load checkpoint, %s does not exist" % (base + ext)
        estimator.net.load_parameters(base + ".params", ctx=estimator.context)
        estimator.trainer.load_states(base + ".states")
        estimator.logger.warning(msg)
