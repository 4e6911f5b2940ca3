"""Samples for ``CTCLoss`` with a brute-force reference over all alignments."""
import itertools

import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(17)


def _collapse(path, blank):
    out = []
    prev = None
    for k in path:
        if k != prev and k != blank:
            out.append(k)
        prev = k
    return tuple(out)


def _ctc_ref(data, label, *lengths, use_data_lengths=False, use_label_lengths=False,
             blank_label="first"):
    """-log p(label | data) by summing the probability of every alignment."""
    t_max, n, c = data.shape
    blank = 0 if blank_label == "first" else c - 1
    pad = 0 if blank_label == "first" else -1
    lengths = list(lengths)
    data_len = lengths.pop(0) if use_data_lengths else np.full(n, t_max)
    label_len = lengths.pop(0) if use_label_lengths else None
    e = np.exp(data - data.max(axis=2, keepdims=True))
    prob = e / e.sum(axis=2, keepdims=True)
    loss = np.zeros(n)
    for b in range(n):
        row = [int(v) for v in label[b]]
        if label_len is not None:
            row = row[:int(label_len[b])]
        elif pad in row:
            row = row[:row.index(pad)]
        t_len = int(data_len[b])
        total = 0.0
        for path in itertools.product(range(c), repeat=t_len):
            if _collapse(path, blank) == tuple(row):
                total += np.prod([prob[t, b, k] for t, k in enumerate(path)])
        loss[b] = -np.log(total)
    return loss


def _x(t, n, c):
    return _rng.standard_normal((t, n, c))


SAMPLES = {
    "CTCLoss": [
        Sample([_x(4, 2, 3), np.array([[1, 2], [2, 0]], dtype=np.float64)], ref=_ctc_ref,
               grad=[0], rtol=1e-6, name="first"),
        Sample([_x(4, 3, 3), np.array([[1, 1], [0, -1], [1, 0]], dtype=np.float64)],
               dict(blank_label="last"), ref=_ctc_ref, grad=[0], rtol=1e-6, name="last"),
        Sample([_x(5, 2, 3), np.array([[1, 2, 1], [2, 2, 1]], dtype=np.float64),
                np.array([5, 4.]), np.array([2, 1.])],
               dict(use_data_lengths=True, use_label_lengths=True), ref=_ctc_ref, grad=[0],
               rtol=1e-6, infer_from=[0, 1], name="lengths"),
        Sample([_x(4, 2, 3), np.array([[1, 2], [1, 1]], dtype=np.float64),
                np.array([3, 4], dtype=np.int32)],
               dict(use_data_lengths=True), ref=_ctc_ref, grad=[0], rtol=1e-6,
               name="data_lengths"),
    ],
}
