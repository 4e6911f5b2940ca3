"""Reading MXNet's ``.lst`` image lists (im2rec's format): one image per line,
``index<TAB>label(s)<TAB>relative path``."""
from __future__ import annotations

from ..base import MXNetError

__all__ = ["read_lst"]


class _ListFileMissing(MXNetError, FileNotFoundError):
    """A missing ``.lst`` file: catch it as ``MXNetError`` or ``FileNotFoundError``."""


def read_lst(path: str, who: str, min_fields: int = 3) -> list:
    """``[(index, label strings, relative path)]`` of the lines of ``path``.

    Parameters
    ----------
    path : str
    who : str
        The caller, for error messages (``ImageIter``, ...).
    min_fields : int, default 3
        Fields a line needs (3: at least one label; 2: labels optional).

    Raises
    ------
    MXNetError
        For an unreadable file or a line with too few fields or a bad index.
    """
    out = []
    try:
        with open(path) as f:
            for number, line in enumerate(f, 1):
                fields = line.strip().split("\t")
                if fields == [""]:
                    continue
                if len(fields) < min_fields or not fields[0].strip().lstrip("-").isdigit():
                    raise MXNetError(f"{who}: {path} line {number} is not "
                                     f"'index<TAB>label(s)<TAB>path': {line.strip()!r}")
                out.append((int(fields[0]), fields[1:-1], fields[-1]))
    except FileNotFoundError as err:
        raise _ListFileMissing(f"{who}: image list {path} not found") from err
    except OSError as err:
        raise MXNetError(f"{who}: cannot read the image list {path}: {err}") from err
    return out
