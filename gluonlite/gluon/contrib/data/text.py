"""``gluon.contrib.data.text`` (MXNet 1.9): the WikiText-2 and WikiText-103 language
modelling datasets, read from local files.

gluonlite never downloads: ``wiki.{train,valid,test}.tokens`` must be in ``root`` (or
MXNet's archive ``wikitext-2-v1.zip`` / ``wikitext-103-v1.zip``, unpacked on use); when
neither is there the error names the file, the folder and where MXNet publishes the
archive.  SHA-1 sums are not checked, so locally made token files are accepted.
"""
from __future__ import annotations

import os
import shutil
import zipfile
from typing import Optional

import numpy as np

from . import _constants as C
from ...data.vision.datasets import _DownloadedDataset, _missing_error
from ...utils import _get_repo_file_url
from .... import ndarray as nd
from ....base import data_dir
from ....contrib import text

__all__ = ["WikiText2", "WikiText103"]


def _unpack_flat(archive: str, dest: str) -> None:
    """Extract every file of a zip archive into ``dest``, dropping its folders."""
    with zipfile.ZipFile(archive) as zf:
        for member in zf.namelist():
            name = os.path.basename(member)
            if name:
                with zf.open(member) as src, open(os.path.join(dest, name), "wb") as dst:
                    shutil.copyfileobj(src, dst)


class _LanguageModelDataset(_DownloadedDataset):
    """A token file as ``(data, label)`` rows of ``seq_len`` token indices, the label
    being the data shifted by one token."""

    def __init__(self, root: str, namespace: str,
                 vocabulary: Optional[text.vocab.Vocabulary]) -> None:
        self._vocab = vocabulary
        self._counter = None
        self._namespace = namespace
        super().__init__(root, None)

    @property
    def vocabulary(self) -> text.vocab.Vocabulary:
        """The vocabulary indexing the tokens."""
        return self._vocab

    @property
    def frequencies(self):
        """collections.Counter: token counts of the file read."""
        return self._counter

    def _build_vocab(self, content: str) -> None:
        if not self._counter:
            self._counter = text.utils.count_tokens_from_str(content)
        if not self._vocab:
            self._vocab = text.vocab.Vocabulary(counter=self.frequencies,
                                                reserved_tokens=[C.EOS_TOKEN])


class _WikiText(_LanguageModelDataset):
    _archive_file = ("", "")
    _data_file: dict = {}

    def _read_batch(self, filename: str):
        with open(filename, "r", encoding="utf8") as fin:
            content = fin.read()
        self._build_vocab(content)
        tokens = []
        for line in content.splitlines():
            words = line.strip().split()
            if words:
                tokens.extend(words)
                tokens.append(C.EOS_TOKEN)
        indices = self.vocabulary.to_indices(tokens)
        return np.array(indices[:-1], dtype=np.int32), np.array(indices[1:], dtype=np.int32)

    def _find_file(self) -> str:
        archive_name = self._archive_file[0]
        data_name = self._data_file[self._segment][0]
        path = os.path.join(self._root, data_name)
        archive = os.path.join(self._root, archive_name)
        if not os.path.isfile(path) and os.path.isfile(archive):
            _unpack_flat(archive, self._root)
        if not os.path.isfile(path):
            url = _get_repo_file_url("gluon/dataset/" + self._namespace, archive_name)
            how = (f"download {url} on a machine with network access and unzip its "
                   f"wiki.*.tokens files into {os.path.abspath(self._root)} (or put the "
                   "zip there: it is unpacked on use)")
            raise _missing_error(type(self).__name__, self._root, [data_name], how)
        return path

    def _get_data(self) -> None:
        data, label = self._read_batch(self._find_file())
        # as MXNet 1.9: keep a whole number of sequences
        n = len(data) // self._seq_len * self._seq_len
        self._data = nd.array(data[:n], dtype=data.dtype).reshape((-1, self._seq_len))
        self._label = nd.array(label[:n], dtype=label.dtype).reshape((-1, self._seq_len))

    def __getitem__(self, idx):
        return self._data[idx], self._label[idx]

    def __len__(self) -> int:
        return len(self._label)


_WIKITEXT_DOC = """WikiText-{n} word-level language modelling dataset (Salesforce research;
    CC BY-SA).

    Each sample is ``(data, label)``: ``seq_len`` token indices and the same shifted by
    one; ``'<eos>'`` ends every line.

    Parameters
    ----------
    root : str, default $MXNET_HOME/datasets/wikitext-{n}
        Folder holding ``wiki.train.tokens``, ``wiki.valid.tokens``, ``wiki.test.tokens``
        (or ``wikitext-{n}-v1.zip``).
    segment : {{'train', 'validation', 'test'}}, default 'train'
        Which file.
    vocab : Vocabulary, optional
        Vocabulary indexing the tokens; default one built from this segment's tokens
        with ``'<eos>'`` reserved.
    seq_len : int, default 35
        Tokens per sample.
    """


class WikiText2(_WikiText):
    __doc__ = _WIKITEXT_DOC.format(n=2)

    _archive_file = ("wikitext-2-v1.zip", "3c914d17d80b1459be871a5039ac23e752a53cbe")
    _data_file = {"train": ("wiki.train.tokens", "863f29c46ef9d167fff4940ec821195882fe29d1"),
                  "validation": ("wiki.valid.tokens",
                                 "0418625c8b4da6e4b5c7a0b9e78d4ae8f7ee5422"),
                  "test": ("wiki.test.tokens", "c7b8ce0aa086fb34dab808c5c49224211eb2b172")}

    def __init__(self, root: str = os.path.join(data_dir(), "datasets", "wikitext-2"),
                 segment: str = "train", vocab: Optional[text.vocab.Vocabulary] = None,
                 seq_len: int = 35) -> None:
        self._segment = segment
        self._seq_len = seq_len
        super().__init__(root, "wikitext-2", vocab)


class WikiText103(_WikiText):
    __doc__ = _WIKITEXT_DOC.format(n=103)

    _archive_file = ("wikitext-103-v1.zip", "0aec09a7537b58d4bb65362fee27650eeaba625a")
    _data_file = {"train": ("wiki.train.tokens", "b7497e2dfe77e72cfef5e3dbc61b7b53712ac211"),
                  "validation": ("wiki.valid.tokens",
                                 "c326ac59dc587676d58c422eb8a03e119582f92b"),
                  "test": ("wiki.test.tokens", "8a5befc548865cec54ed4273cf87dbbad60d1e47")}

    def __init__(self, root: str = os.path.join(data_dir(), "datasets", "wikitext-103"),
                 segment: str = "train", vocab: Optional[text.vocab.Vocabulary] = None,
                 seq_len: int = 35) -> None:
        self._segment = segment
        self._seq_len = seq_len
        super().__init__(root, "wikitext-103", vocab)
