"""Checkpoint files of ``CheckpointHandler``: ``{prefix}-epoch{E}batch{B}.params`` and
``.states``, ``{prefix}-best.*`` and ``{prefix}-symbol.json``, each written under a
temporary name and renamed into place, so an interrupted save never leaves a
truncated checkpoint behind."""
from __future__ import annotations

import os
import re
from typing import Callable, List, Tuple

__all__ = ["save_atomically", "checkpoint_name", "find_checkpoints", "remove_checkpoint"]


def save_atomically(save: Callable[[str], None], path: str) -> None:
    """Call ``save(temporary path)`` and rename the file it wrote to ``path``."""
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        save(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def checkpoint_name(prefix: str, epoch: int, batch: int) -> str:
    """``{prefix}-epoch{epoch}batch{batch}``."""
    return "%s-epoch%dbatch%d" % (prefix, epoch, batch)


def find_checkpoints(model_dir: str, prefix: str) -> List[Tuple[int, int]]:
    """``(epoch, batch)`` of every ``{prefix}-epoch{E}batch{B}.params`` in ``model_dir``,
    in ascending order."""
    pattern = re.compile(re.escape(prefix) + r"-epoch(\d+)batch(\d+)\.params$")
    found = []
    for fname in os.listdir(model_dir):
        match = pattern.match(fname)
        if match:
            found.append((int(match.group(1)), int(match.group(2))))
    return sorted(found)


def remove_checkpoint(model_dir: str, name: str) -> None:
    """Delete ``{name}.params`` and ``{name}.states`` where present."""
    for ext in (".params", ".states"):
        path = os.path.join(model_dir, name + ext)
        if os.path.exists(path):
            os.remove(path)
