"""``mx.contrib.text.embedding``: token embeddings (MXNet 1.9).

``GloVe`` and ``FastText`` read MXNet's pretrained files from
``{embedding_root}/{glove|fasttext}/`` (default root ``$MXNET_HOME/embeddings``); gluonlite
never downloads them (see :mod:`._pretrained`).  ``CustomEmbedding`` reads any text file
of ``token v1 v2 ...`` lines, ``CompositeEmbedding`` concatenates embeddings over a
vocabulary.  ``register``/``create``/``get_pretrained_file_names`` are the registry.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Union

from . import _constants as C
from . import vocab
from ._token_embedding import TokenEmbedding
from ... import ndarray as nd
from ... import registry

__all__ = ["register", "create", "get_pretrained_file_names", "TokenEmbedding", "GloVe",
           "FastText", "CustomEmbedding", "CompositeEmbedding"]

# MXNet's name for the base class
_TokenEmbedding = TokenEmbedding


def register(embedding_cls: type) -> type:
    """Register a token embedding class under its lower-case class name, so that
    :func:`create` can make it.

    Parameters
    ----------
    embedding_cls : type
        A subclass of ``TokenEmbedding``.

    Returns
    -------
    type
        ``embedding_cls``.
    """
    return registry.get_register_func(TokenEmbedding, "token embedding")(embedding_cls)


def create(embedding_name: str, **kwargs) -> TokenEmbedding:
    """Create a registered token embedding by name (case-insensitive).

    Parameters
    ----------
    embedding_name : str
        ``'glove'``, ``'fasttext'`` or a name given to :func:`register`.
    **kwargs
        Arguments of the embedding's constructor (``pretrained_file_name``,
        ``embedding_root``, ``vocabulary``, ...).

    Returns
    -------
    TokenEmbedding
    """
    return registry.get_create_func(TokenEmbedding, "token embedding")(embedding_name, **kwargs)


def get_pretrained_file_names(embedding_name: Optional[str] = None
                              ) -> Union[List[str], Dict[str, List[str]]]:
    """Pretrained file names of a registered embedding, or of all of them.

    Parameters
    ----------
    embedding_name : str, optional
        A registered embedding name; None for all.

    Returns
    -------
    list of str or dict
        The file names valid as ``pretrained_file_name`` of ``embedding_name``, or a
        dict from every registered name to its list.

    Raises
    ------
    KeyError
        For a name that is not registered.
    """
    reg = registry.get_registry(TokenEmbedding)
    if embedding_name is None:
        return {name: list(cls.pretrained_file_name_sha1) for name, cls in reg.items()}
    if embedding_name not in reg:
        raise KeyError(f"Cannot find `embedding_name` {embedding_name}. Use "
                       "`get_pretrained_file_names(embedding_name=None).keys()` to get all "
                       "the valid embedding names.")
    return list(reg[embedding_name].pretrained_file_name_sha1)


class _Pretrained(TokenEmbedding):
    """A published embedding: check the name, find the local file, load it."""

    def __init__(self, pretrained_file_name: str, embedding_root: Optional[str],
                 init_unknown_vec: Callable, vocabulary: Optional[vocab.Vocabulary],
                 **kwargs) -> None:
        type(self)._check_pretrained_file_names(pretrained_file_name)
        super().__init__(**kwargs)
        path = type(self)._get_pretrained_file(embedding_root, pretrained_file_name)
        self._load_embedding(path, " ", init_unknown_vec)
        self._build_embedding_for_vocabulary(vocabulary)


@register
class GloVe(_Pretrained):
    """The GloVe embedding (https://nlp.stanford.edu/projects/glove/), read from
    ``{embedding_root}/glove/{pretrained_file_name}``.

    Parameters
    ----------
    pretrained_file_name : str, default 'glove.840B.300d.txt'
        One of ``get_pretrained_file_names('glove')``.
    embedding_root : str, optional
        Default ``$MXNET_HOME/embeddings``.  The file, or MXNet's archive of it
        (``glove.840B.300d.zip``...), must be in ``{embedding_root}/glove``.
    init_unknown_vec : callable, default nd.zeros
        Makes the unknown token's vector: ``init_unknown_vec(shape=vec_len)``.
    vocabulary : Vocabulary, optional
        Index this vocabulary's tokens instead of all the file's.
    """

    # archive -> SHA-1 and embedding file -> SHA-1 (MXNet's attribute names)
    pretrained_archive_name_sha1 = C.GLOVE_PRETRAINED_FILE_SHA1
    pretrained_file_name_sha1 = C.GLOVE_PRETRAINED_ARCHIVE_SHA1

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name: str) -> str:
        by_corpus = {name.split(".")[1]: name for name in cls.pretrained_archive_name_sha1}
        return by_corpus[pretrained_file_name.split(".")[1]]

    def __init__(self, pretrained_file_name: str = "glove.840B.300d.txt",
                 embedding_root: Optional[str] = None, init_unknown_vec: Callable = nd.zeros,
                 vocabulary: Optional[vocab.Vocabulary] = None, **kwargs) -> None:
        super().__init__(pretrained_file_name, embedding_root, init_unknown_vec, vocabulary,
                         **kwargs)


@register
class FastText(_Pretrained):
    """The fastText embedding (https://fasttext.cc/), read from
    ``{embedding_root}/fasttext/{pretrained_file_name}``.

    Parameters
    ----------
    pretrained_file_name : str, default 'wiki.simple.vec'
        One of ``get_pretrained_file_names('fasttext')``.
    embedding_root : str, optional
        Default ``$MXNET_HOME/embeddings``.  The file, or MXNet's archive of it
        (``wiki.simple.zip``...), must be in ``{embedding_root}/fasttext``.
    init_unknown_vec : callable, default nd.zeros
        Makes the unknown token's vector: ``init_unknown_vec(shape=vec_len)``.
    vocabulary : Vocabulary, optional
        Index this vocabulary's tokens instead of all the file's.
    """

    pretrained_archive_name_sha1 = C.FAST_TEXT_ARCHIVE_SHA1
    pretrained_file_name_sha1 = C.FAST_TEXT_FILE_SHA1

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name: str) -> str:
        return pretrained_file_name.rsplit(".", 1)[0] + ".zip"

    def __init__(self, pretrained_file_name: str = "wiki.simple.vec",
                 embedding_root: Optional[str] = None, init_unknown_vec: Callable = nd.zeros,
                 vocabulary: Optional[vocab.Vocabulary] = None, **kwargs) -> None:
        super().__init__(pretrained_file_name, embedding_root, init_unknown_vec, vocabulary,
                         **kwargs)


class CustomEmbedding(TokenEmbedding):
    """An embedding read from a user's text file of ``token<d>v1<d>v2...`` lines.

    Parameters
    ----------
    pretrained_file_path : str
        The file.
    elem_delim : str, default ' '
        Separator of the token and the numbers on a line.
    encoding : str, default 'utf8'
        The file's encoding.
    init_unknown_vec : callable, default nd.zeros
        Makes the unknown vector when the file has no line for ``unknown_token``.
    vocabulary : Vocabulary, optional
        Index this vocabulary's tokens instead of all the file's.
    **kwargs
        ``unknown_token``, ``reserved_tokens`` (as :class:`~.vocab.Vocabulary`).
    """

    def __init__(self, pretrained_file_path: str, elem_delim: str = " ",
                 encoding: str = "utf8", init_unknown_vec: Callable = nd.zeros,
                 vocabulary: Optional[vocab.Vocabulary] = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self._load_embedding(pretrained_file_path, elem_delim, init_unknown_vec, encoding)
        self._build_embedding_for_vocabulary(vocabulary)


class CompositeEmbedding(TokenEmbedding):
    """A vocabulary's tokens with the vectors of one or more embeddings concatenated.

    Parameters
    ----------
    vocabulary : Vocabulary
        The tokens to index (in its order).
    token_embeddings : TokenEmbedding or list of TokenEmbedding
        Their vectors are concatenated, in this order, for every token.
    """

    def __init__(self, vocabulary: vocab.Vocabulary,
                 token_embeddings: Union[TokenEmbedding, List[TokenEmbedding]]) -> None:
        assert isinstance(vocabulary, vocab.Vocabulary), \
            "The argument `vocabulary` must be an instance of " \
            "mxnet.contrib.text.indexer.Vocabulary."
        if not isinstance(token_embeddings, list):
            token_embeddings = [token_embeddings]
        for embed in token_embeddings:
            assert isinstance(embed, TokenEmbedding), \
                "The argument `token_embeddings` must be an instance or a list of instances " \
                "of `mxnet.contrib.text.embedding.TextEmbedding` whose embedding vectors " \
                "will be loaded or concatenated-then-loaded to map to the indexed tokens."
        self._index_tokens_from_vocabulary(vocabulary)
        self._set_idx_to_vec_by_embeddings(token_embeddings, len(self), self.idx_to_token)
