"""Calibration statistics of ``mx.contrib.quantization``: the collectors that record
the float graph's values (min/max for ``naive``, histograms for ``entropy``) and the
KL-divergence thresholds of the ``entropy`` mode, as MXNet 1.9.1 computes them."""
from __future__ import annotations

import numpy as np

from .. import ndarray

__all__ = ["CalibrationCollector", "combine_histogram"]


class CalibrationCollector:
    """Base of the calibration collectors: ``collect(name, arr)`` is called with the
    float32 value of each entry to calibrate; ``post_collect()`` returns the
    ``{name: (min, max)}`` thresholds."""

    def __init__(self):
        self.include_layers = None

    def collect(self, name: str, op_name: str | None, arr) -> None:
        raise NotImplementedError

    def post_collect(self) -> dict:
        raise NotImplementedError


def combine_histogram(old_hist: tuple, arr: np.ndarray, new_min: float, new_max: float,
                      new_th: float) -> tuple:
    """Add ``arr`` to a ``(hist, edges, min, max, th)`` histogram, widening it by whole
    bins on both sides when ``new_th`` exceeds its threshold."""
    hist, edges, old_min, old_max, old_th = old_hist
    if new_th <= old_th:
        more, _ = np.histogram(arr, bins=len(hist), range=(-old_th, old_th))
        return hist + more, edges, min(old_min, new_min), max(old_max, new_max), old_th
    step = 2 * old_th / len(hist)
    grow = int((new_th - old_th) // step + 1)
    bins = len(hist) + 2 * grow
    th = grow * step + old_th
    new_hist, new_edges = np.histogram(arr, bins=bins, range=(-th, th))
    new_hist[grow:bins - grow] += hist
    return new_hist, new_edges, min(old_min, new_min), max(old_max, new_max), th


def _as_numpy(arr) -> np.ndarray:
    return arr.asnumpy() if hasattr(arr, "asnumpy") else np.asarray(arr)


def _included_range(include_layer, name: str, arr):
    """``(host array, min, max)`` of an entry a collector includes, else None."""
    if include_layer is not None and name not in include_layer:
        return None
    arr = _as_numpy(arr)
    return arr, float(arr.min()), float(arr.max())


class _LayerHistogramCollector(CalibrationCollector):
    """Histograms (``num_bins`` symmetric bins) of each included entry, for ``entropy``."""

    def __init__(self, num_bins: int = 8001, include_layer=None, logger=None):
        super().__init__()
        self.hist_dict = {}
        self.num_bins = num_bins
        self.include_layer = include_layer
        self.logger = logger

    def collect(self, name: str, arr, *_) -> None:
        seen = _included_range(self.include_layer, name, arr)
        if seen is None:
            return
        arr, lo, hi = seen
        th = max(abs(lo), abs(hi))
        if name in self.hist_dict:
            self.hist_dict[name] = combine_histogram(self.hist_dict[name], arr, lo, hi, th)
        else:
            hist, edges = np.histogram(arr, bins=self.num_bins, range=(-th, th))
            self.hist_dict[name] = (hist, edges, lo, hi, th)

    def post_collect(self) -> dict:
        return _get_optimal_thresholds(self.hist_dict, "int8", logger=self.logger)


class _LayerOutputMinMaxCollector(CalibrationCollector):
    """Running min and max of each included entry, for ``naive`` calibration."""

    def __init__(self, quantized_dtype: str = "int8", include_layer=None, logger=None):
        super().__init__()
        self.min_max_dict = {}
        self.quantized_dtype = quantized_dtype
        self.include_layer = include_layer
        self.logger = logger

    def collect(self, name: str, arr, *_) -> None:
        seen = _included_range(self.include_layer, name, arr)
        if seen is None:
            return
        _, lo, hi = seen
        if name in self.min_max_dict:
            old = self.min_max_dict[name]
            lo, hi = min(old[0], lo), max(old[1], hi)
        self.min_max_dict[name] = (lo, hi)
        if self.logger:
            self.logger.debug("Collecting layer %s min_range=%f, max_range=%f", name, lo, hi)

    def post_collect(self) -> dict:
        return self.min_max_dict


_LayerOutputCollector = _LayerOutputMinMaxCollector  # MXNet 2.0's name


def _smooth_distribution(p: np.ndarray, eps: float = 0.0001) -> np.ndarray:
    """Replace zeros of a histogram by ``eps``, taking the mass off the non-zero bins."""
    zeros = p == 0
    n_zeros = int(zeros.sum())
    n_nonzeros = p.size - n_zeros
    if not n_nonzeros:
        raise ValueError("The discrete probability distribution is malformed. All entries "
                         "are 0.")
    eps1 = eps * n_zeros / n_nonzeros
    hist = p.astype(np.float32)
    hist += np.where(zeros, np.float32(eps), np.float32(-eps1)).astype(np.float32)
    return hist


def _get_optimal_threshold(hist_data: tuple, quantized_dtype: str,
                           num_quantized_bins: int = 255) -> tuple:
    """The KL-divergence threshold of one histogram ``(hist, edges, min, max, th)``.

    Returns ``(min_val, max_val, threshold, divergence)`` (the last two as ``(1,)``
    float32 arrays, as MXNet returns them); non-negative data quantized to uint8 or
    ``auto`` uses ``2 * num_quantized_bins + 1`` bins.
    """
    hist, edges, min_val, max_val, _ = hist_data
    if len(hist) % 2 != 1:
        raise ValueError("the histogram needs an odd number of bins")
    if min_val >= 0 and quantized_dtype in ("auto", "uint8"):
        num_quantized_bins = num_quantized_bins * 2 + 1
    th, div = ndarray.contrib.calibrate_entropy(
        ndarray.array(np.asarray(hist, dtype=np.float32)),
        ndarray.array(np.asarray(edges, dtype=np.float32)),
        num_quantized_bins=num_quantized_bins)
    return min_val, max_val, th.asnumpy(), div.asnumpy()


def _get_optimal_thresholds(hist_dict: dict, quantized_dtype: str,
                            num_quantized_bins: int = 255, logger=None) -> dict:
    """``{name: (min, max)}`` from the histograms of ``hist_dict`` (emptied on the way)."""
    th_dict = {}
    for name in list(hist_dict):
        min_val, max_val, th, div = _get_optimal_threshold(hist_dict.pop(name),
                                                           quantized_dtype, num_quantized_bins)
        th = float(th.reshape(-1)[0])
        th_dict[name] = (0, th) if min_val >= 0 and quantized_dtype in ("auto", "uint8") \
            else (-th, th)
        if logger:
            logger.debug("layer=%s, min_val=%f, max_val=%f, th=%f, divergence=%f",
                         name, min_val, max_val, th, float(div.reshape(-1)[0]))
    return th_dict
