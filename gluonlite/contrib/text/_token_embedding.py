"""The token-embedding base class of ``mx.contrib.text.embedding`` (MXNet's
``_TokenEmbedding``): a :class:`~.vocab.Vocabulary` whose every index has a vector."""
from __future__ import annotations

import logging
import os
from typing import Callable, Hashable, List, Optional, Sequence, Union

import numpy as np

from . import _constants as C
from . import _loader, _pretrained
from .vocab import Vocabulary
from ... import ndarray as nd

__all__ = ["TokenEmbedding"]


def _as_numpy(value) -> np.ndarray:
    return value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)


class TokenEmbedding(Vocabulary):
    """Token embedding base class (MXNet's ``_TokenEmbedding``).

    Index 0 (the unknown token) has the vector the file gives ``unknown_token``, else
    the one ``init_unknown_vec`` makes.  A token seen twice in a file keeps its first
    vector.  Built with a ``vocabulary``, the embedding indexes that vocabulary's tokens
    (in its order) and gives each its loaded vector, or the unknown vector.

    Attributes
    ----------
    vec_len : int
        Length of each vector.
    idx_to_vec : NDArray
        ``(len(self), vec_len)`` float32: row ``i`` is the vector of ``idx_to_token[i]``.
    """

    # name -> SHA-1 of the files a pretrained embedding publishes (subclasses set it)
    pretrained_file_name_sha1: dict = {}

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._vec_len = None
        self._idx_to_vec = None

    # ---- where pretrained files are -------------------------------------------------
    @classmethod
    def _get_download_file_name(cls, pretrained_file_name: str) -> str:
        return pretrained_file_name

    @classmethod
    def _get_pretrained_file_url(cls, pretrained_file_name: str) -> str:
        repo_url = os.environ.get("MXNET_GLUON_REPO", C.APACHE_REPO_URL)
        return (f"{repo_url}gluon/embeddings/{cls.__name__.lower()}/"
                f"{cls._get_download_file_name(pretrained_file_name)}")

    @classmethod
    def _get_pretrained_file(cls, embedding_root: Optional[str],
                             pretrained_file_name: str) -> str:
        """Path of the checked local file (never downloads; see ``_pretrained.locate``)."""
        return _pretrained.locate(
            cls.__name__.lower(), embedding_root, pretrained_file_name,
            cls.pretrained_file_name_sha1[pretrained_file_name],
            cls._get_download_file_name(pretrained_file_name),
            cls._get_pretrained_file_url(pretrained_file_name))

    @classmethod
    def _check_pretrained_file_names(cls, pretrained_file_name: str) -> None:
        name = cls.__name__.lower()
        if pretrained_file_name not in cls.pretrained_file_name_sha1:
            raise KeyError(
                f"Cannot find pretrained file {pretrained_file_name} for token embedding "
                f"{name}. Valid pretrained files for embedding {name}: "
                + ", ".join(cls.pretrained_file_name_sha1.keys()))

    # ---- building ---------------------------------------------------------------------
    def _load_embedding(self, pretrained_file_path: str, elem_delim: str,
                        init_unknown_vec: Callable, encoding: str = "utf8") -> None:
        """Index the tokens of an embedding file after those already indexed and set
        ``idx_to_vec`` (tokens indexed before the file's, reserved ones, get the
        ``init_unknown_vec`` vector unless the file has theirs)."""
        logging.info("Loading pre-trained token embedding vectors from %s",
                     pretrained_file_path)
        tokens, vectors, unknown_vec = _loader.read_embedding_file(
            pretrained_file_path, elem_delim, self.unknown_token, encoding)
        vec_len = vectors.shape[1]
        init = _as_numpy(init_unknown_vec(shape=vec_len)).astype(np.float32)
        rows = [init] * len(self._idx_to_token)
        if unknown_vec is not None:
            rows[C.UNKNOWN_IDX] = unknown_vec
        for token, vec in zip(tokens, vectors):
            idx = self._token_to_idx.get(token)
            if idx is None:
                self._token_to_idx[token] = len(self._idx_to_token)
                self._idx_to_token.append(token)
                rows.append(vec)
            else:
                rows[idx] = vec
        self._vec_len = vec_len
        self._idx_to_vec = nd.array(np.stack(rows).reshape(-1, vec_len), dtype="float32")

    def _index_tokens_from_vocabulary(self, vocabulary: Vocabulary) -> None:
        self._token_to_idx = dict(vocabulary.token_to_idx)
        self._idx_to_token = list(vocabulary.idx_to_token)
        self._unknown_token = vocabulary.unknown_token
        self._reserved_tokens = (None if vocabulary.reserved_tokens is None
                                 else list(vocabulary.reserved_tokens))

    def _set_idx_to_vec_by_embeddings(self, token_embeddings: Sequence["TokenEmbedding"],
                                      vocab_len: int, vocab_idx_to_token: list) -> None:
        """Rows of ``vocab_idx_to_token`` = the embeddings' vectors side by side (row 0
        from each embedding's unknown vector)."""
        parts = []
        for embed in token_embeddings:
            part = np.empty((vocab_len, embed.vec_len), dtype=np.float32)
            part[0] = embed.idx_to_vec[0].asnumpy()
            if vocab_len > 1:
                part[1:] = embed.get_vecs_by_tokens(list(vocab_idx_to_token[1:])).asnumpy()
            parts.append(part)
        self._vec_len = sum(embed.vec_len for embed in token_embeddings)
        self._idx_to_vec = nd.array(np.concatenate(parts, axis=1), dtype="float32")

    def _build_embedding_for_vocabulary(self, vocabulary: Optional[Vocabulary]) -> None:
        if vocabulary is None:
            return
        assert isinstance(vocabulary, Vocabulary), \
            "The argument `vocabulary` must be an instance of " \
            "mxnet.contrib.text.vocab.Vocabulary."
        self._set_idx_to_vec_by_embeddings([self], len(vocabulary), vocabulary.idx_to_token)
        self._index_tokens_from_vocabulary(vocabulary)

    # ---- public API ---------------------------------------------------------------------
    @property
    def vec_len(self) -> Optional[int]:
        """int: length of each embedding vector."""
        return self._vec_len

    @property
    def idx_to_vec(self):
        """NDArray: ``(len(self), vec_len)``, row ``i`` the vector of token ``i``."""
        return self._idx_to_vec

    def __getitem__(self, tokens):
        """``get_vecs_by_tokens(tokens)`` (gluonlite extra)."""
        return self.get_vecs_by_tokens(tokens)

    def get_vecs_by_tokens(self, tokens: Union[Hashable, List[Hashable]],
                           lower_case_backup: bool = False):
        """Embedding vectors of tokens.

        Parameters
        ----------
        tokens : str or list of str
            One token, or a list.
        lower_case_backup : bool, default False
            When a token is not indexed, look its lower case up before falling back to
            the unknown vector.

        Returns
        -------
        NDArray
            ``(vec_len,)`` for one token, ``(len(tokens), vec_len)`` for a list.
        """
        single = not isinstance(tokens, list)
        toks = [tokens] if single else tokens
        get = self._token_to_idx.get
        if lower_case_backup:
            indices = [get(t, get(t.lower(), C.UNKNOWN_IDX)) if t not in self._token_to_idx
                       else self._token_to_idx[t] for t in toks]
        else:
            indices = [get(t, C.UNKNOWN_IDX) for t in toks]
        if not indices:
            return nd.empty((0, self._idx_to_vec.shape[1]), ctx=self._idx_to_vec.context)
        vecs = nd.Embedding(nd.array(indices, ctx=self._idx_to_vec.context), self._idx_to_vec,
                            input_dim=self._idx_to_vec.shape[0],
                            output_dim=self._idx_to_vec.shape[1])
        return vecs[0] if single else vecs

    def update_token_vectors(self, tokens: Union[Hashable, List[Hashable]],
                             new_vectors) -> None:
        """Overwrite the vectors of indexed tokens.

        Parameters
        ----------
        tokens : str or list of str
            Tokens to update; each must be indexed (name the unknown token explicitly to
            update its vector).
        new_vectors : NDArray
            ``(len(tokens), vec_len)``; 1-D is also accepted for a single token.

        Raises
        ------
        AssertionError
            On a wrong type or shape of ``new_vectors``.
        ValueError
            On a token that is not indexed.
        """
        assert self._idx_to_vec is not None, \
            "The property `idx_to_vec` has not been properly set."
        if not isinstance(tokens, list) or len(tokens) == 1:
            assert isinstance(new_vectors, nd.NDArray) and new_vectors.ndim in (1, 2), \
                "`new_vectors` must be a 1-D or 2-D NDArray if `tokens` is a singleton."
            tokens = tokens if isinstance(tokens, list) else [tokens]
            if new_vectors.ndim == 1:
                new_vectors = new_vectors.expand_dims(axis=0)
        else:
            assert isinstance(new_vectors, nd.NDArray) and new_vectors.ndim == 2, \
                "`new_vectors` must be a 2-D NDArray if `tokens` is a list of multiple strings."
        assert new_vectors.shape == (len(tokens), self.vec_len), \
            "The length of new_vectors must be equal to the number of tokens and the width " \
            "of new_vectors must be equal to the dimension of embeddings of the glossary."
        indices = []
        for token in tokens:
            if token not in self._token_to_idx:
                raise ValueError(
                    f"Token {token} is unknown. To update the embedding vector for an unknown "
                    "token, please specify it explicitly as the `unknown_token` "
                    f"{self._idx_to_token[C.UNKNOWN_IDX]} in `tokens`. This is to avoid "
                    "unintended updates.")
            indices.append(self._token_to_idx[token])
        self._idx_to_vec[nd.array(indices, ctx=self._idx_to_vec.context)] = new_vectors
