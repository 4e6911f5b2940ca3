"""Where a pretrained token-embedding file is found on disk.

MXNet keeps the file ``{root}/{class name, lower case}/{file name}`` (root
``$MXNET_HOME/embeddings``) and downloads it, or the archive it comes in, when it is
missing.  gluonlite never downloads: it takes the file if present (checked against its
published SHA-1), unpacks it from the archive if only that is present, and otherwise
raises :class:`EmbeddingFileMissing` naming the file, the directory and the address MXNet
published it at.
"""
from __future__ import annotations

import os
import tarfile
import zipfile
from typing import Optional

from ...base import MXNetError, data_dir
from ...gluon.utils import check_sha1

__all__ = ["EmbeddingFileMissing", "default_root", "locate"]


class EmbeddingFileMissing(MXNetError, FileNotFoundError):
    """A pretrained embedding file is not on disk (gluonlite does not download); catch it
    as ``MXNetError`` or as ``FileNotFoundError``."""


def default_root() -> str:
    """``$MXNET_HOME/embeddings`` (``~/.mxnet/embeddings``), read when called."""
    return os.path.join(data_dir(), "embeddings")


def _unpack(archive: str, dest: str) -> None:
    if archive.endswith(".zip"):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(dest)
    elif archive.endswith((".tar.gz", ".tgz", ".gz")):
        with tarfile.open(archive, "r:gz") as tar:
            tar.extractall(dest)


def locate(embedding_name: str, root: Optional[str], file_name: str, file_sha1: str,
           archive_name: str, url: str) -> str:
    """Path of a checked pretrained embedding file.

    Parameters
    ----------
    embedding_name : str
        Lower-case class name (``'glove'``): the sub-directory of ``root``.
    root : str or None
        Embedding root; None means :func:`default_root`.
    file_name, file_sha1 : str
        The embedding file and its published SHA-1.
    archive_name : str
        The file MXNet downloads (an archive, or ``file_name`` itself).
    url : str
        Where MXNet publishes ``archive_name`` (for the message).

    Returns
    -------
    str
        ``{root}/{embedding_name}/{file_name}``.

    Raises
    ------
    EmbeddingFileMissing
        When neither the file nor its archive is there.
    MXNetError
        When the file's SHA-1 differs from the published one.
    """
    folder = os.path.join(os.path.expanduser(root if root is not None else default_root()),
                          embedding_name)
    path = os.path.join(folder, file_name)
    archive = os.path.join(folder, archive_name)
    if not os.path.isfile(path) and archive != path and os.path.isfile(archive):
        _unpack(archive, folder)
    if not os.path.isfile(path):
        raise EmbeddingFileMissing(
            f"Pretrained {embedding_name} embedding file '{file_name}' not found: expected "
            f"{path}. gluonlite does not download; put the file there (MXNet publishes it "
            f"as {url}" + (f", which unpacks to {file_name}" if archive != path else "") +
            "; the archive itself in that folder is unpacked on use), or pass "
            "embedding_root= naming the directory that holds "
            f"'{embedding_name}/{file_name}'.")
    if not check_sha1(path, file_sha1):
        raise MXNetError(
            f"Pretrained {embedding_name} embedding file {path} is damaged or not MXNet's: "
            f"its SHA-1 differs from {file_sha1}. Replace it with the file published as "
            f"{url}.")
    return path
