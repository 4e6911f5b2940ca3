"""``mx.rnn.io``: sentence encoding and the bucketing iterator of MXNet's language-model
examples.

:class:`BucketSentenceIter` shuffles as MXNet does, with the same generators in
the same order: Python's ``random.shuffle`` for the order of the batches and
NumPy's global ``np.random.shuffle`` for the sentences of each bucket.  Seeding
``random.seed`` and ``np.random.seed`` therefore reproduces MXNet's batches.
"""
from __future__ import annotations

import bisect
import random
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import ndarray
from ..io import DataBatch, DataDesc, DataIter

__all__ = ["encode_sentences", "BucketSentenceIter"]


def encode_sentences(sentences: Sequence[Sequence[str]], vocab: Optional[Dict[str, int]] = None,
                     invalid_label: int = -1, invalid_key: str = "\n", start_label: int = 0,
                     unknown_token: Optional[str] = None
                     ) -> Tuple[List[List[int]], Dict[str, int]]:
    """Map the tokens of sentences to integers, growing the vocabulary as needed.

    Parameters
    ----------
    sentences : list of list of str
        Tokenized sentences.
    vocab : dict of str to int, optional
        Existing vocabulary (extended in place when ``unknown_token`` is set); a new
        one ``{invalid_key: invalid_label}`` when None.
    invalid_label : int, default -1
        Index reserved for ``invalid_key``; never given to a new token.
    invalid_key : str, default '\\n'
        Token of ``invalid_label`` in a new vocabulary.
    start_label : int, default 0
        First index given to a new token.
    unknown_token : str, optional
        With a given ``vocab``, unknown tokens map to this token (added when missing);
        without it an unknown token in a given ``vocab`` is an error.

    Returns
    -------
    (list of list of int, dict of str to int)
        The encoded sentences and the vocabulary.
    """
    next_index = start_label
    if vocab is None:
        vocab = {invalid_key: invalid_label}
        new_vocab = True
    else:
        new_vocab = False
    encoded = []
    for sentence in sentences:
        codes = []
        for word in sentence:
            if word not in vocab:
                assert new_vocab or unknown_token, "Unknown token %s" % word
                if next_index == invalid_label:
                    next_index += 1
                if unknown_token:
                    word = unknown_token
                vocab[word] = next_index
                next_index += 1
            codes.append(vocab[word])
        encoded.append(codes)
    return encoded, vocab


class BucketSentenceIter(DataIter):
    """Batches of equal-length (padded) sentences for bucketing language models; the
    label of each step is the next token (``invalid_label`` after the last).

    Parameters
    ----------
    sentences : list of list of int
        Encoded sentences.
    batch_size : int
    buckets : list of int, optional
        Bucket lengths; by default every length that at least ``batch_size``
        sentences have.  Sentences longer than the largest bucket are dropped.
    invalid_label : int, default -1
        Padding value.
    data_name : str, default 'data'
    label_name : str, default 'softmax_label'
    dtype : str, default 'float32'
    layout : {'NT', 'TN'}, default 'NT'
        Batch-major ``(batch, length)`` or time-major ``(length, batch)`` arrays.
    """

    def __init__(self, sentences: Sequence[Sequence[int]], batch_size: int,
                 buckets: Optional[List[int]] = None, invalid_label: int = -1,
                 data_name: str = "data", label_name: str = "softmax_label",
                 dtype: str = "float32", layout: str = "NT") -> None:
        super().__init__()
        if not buckets:
            counts = np.bincount([len(s) for s in sentences])
            buckets = [length for length, count in enumerate(counts) if count >= batch_size]
        buckets = sorted(buckets)

        discarded = 0
        per_bucket: List[list] = [[] for _ in buckets]
        used = [False] * (len(buckets) + 1)
        for sentence in sentences:
            index = bisect.bisect_left(buckets, len(sentence))
            used[index] = True
            if index == len(buckets):
                discarded += 1
                continue
            row = np.full((buckets[index],), invalid_label, dtype=dtype)
            row[:len(sentence)] = sentence
            per_bucket[index].append(row)
        buckets = [length for i, length in enumerate(buckets) if used[i]]
        self.data = [np.asarray(rows, dtype=dtype) for rows in per_bucket if rows]
        print("WARNING: discarded %d sentences longer than the largest bucket." % discarded)

        self.batch_size = batch_size
        self.buckets = buckets
        self.data_name = data_name
        self.label_name = label_name
        self.dtype = dtype
        self.invalid_label = invalid_label
        self.nddata: list = []
        self.ndlabel: list = []
        self.major_axis = layout.find("N")
        self.layout = layout
        self.default_bucket_key = max(buckets)

        if self.major_axis == 0:
            shape = (batch_size, self.default_bucket_key)
        elif self.major_axis == 1:
            shape = (self.default_bucket_key, batch_size)
        else:
            raise ValueError("Invalid layout %s: Must by NT (batch major) or TN (time major)"
                             % layout)
        self.provide_data = [DataDesc(name=data_name, shape=shape, layout=layout)]
        self.provide_label = [DataDesc(name=label_name, shape=shape, layout=layout)]

        self.idx = []
        for i, rows in enumerate(self.data):
            self.idx.extend([(i, j) for j in range(0, len(rows) - batch_size + 1, batch_size)])
        self.curr_idx = 0
        self.reset()

    def reset(self) -> None:
        """Shuffle the batch order and each bucket's sentences, and start over."""
        self.curr_idx = 0
        random.shuffle(self.idx)
        for rows in self.data:
            np.random.shuffle(rows)
        self.nddata = []
        self.ndlabel = []
        for rows in self.data:
            label = np.empty_like(rows)
            label[:, :-1] = rows[:, 1:]
            label[:, -1] = self.invalid_label
            self.nddata.append(ndarray.array(rows, dtype=self.dtype))
            self.ndlabel.append(ndarray.array(label, dtype=self.dtype))

    def next(self) -> DataBatch:
        """The next batch, with its ``bucket_key`` and its own ``provide_data`` /
        ``provide_label``; ``StopIteration`` at the end."""
        if self.curr_idx == len(self.idx):
            raise StopIteration
        i, j = self.idx[self.curr_idx]
        self.curr_idx += 1
        data = self.nddata[i][j:j + self.batch_size]
        label = self.ndlabel[i][j:j + self.batch_size]
        if self.major_axis == 1:
            data = data.T
            label = label.T
        return DataBatch([data], [label], pad=0, bucket_key=self.buckets[i],
                         provide_data=[DataDesc(name=self.data_name, shape=data.shape,
                                                layout=self.layout)],
                         provide_label=[DataDesc(name=self.label_name, shape=label.shape,
                                                 layout=self.layout)])
