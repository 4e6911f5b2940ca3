"""``mx.kvstore.kvstore_server``: the server side of MXNet's distributed key-value store
(MXNet 1.9's ``mxnet.kvstore.kvstore_server``).

In MXNet a distributed job (``tools/launch.py``) starts the same script as workers,
servers and a scheduler, told apart by the ``DMLC_ROLE`` environment variable; importing
``mxnet`` in a server or scheduler process runs the ps-lite server loop and exits, so
the rest of the script only ever runs on workers.

gluonlite has no distributed key-value store (only the single-process ``local``/
``device`` stores), so no process can serve.  Importing this module runs
:func:`_init_kvstore_server_module` as MXNet's import does: on a worker (``DMLC_ROLE``
unset or ``worker``) it does nothing; in a process launched as a server or scheduler
it raises ``MXNetError`` rather than let that process go on and train as if it were a
worker.  :class:`KVStoreServer` handles the controller commands a worker sends (the
pickled optimizer) against any store; only :meth:`KVStoreServer.run`, the ps-lite
receive loop, needs what gluonlite lacks.
"""
from __future__ import annotations

import logging
import os
import pickle
from typing import Callable

from ..base import MXNetError

__all__ = ["KVStoreServer"]

# the controller command a worker sends with a pickled optimizer (MXNet's ``kController``)
_COMMAND_SET_OPTIMIZER = 0
# the roles ps-lite gives the processes that do not run the training script
_SERVING_ROLES = ("server", "scheduler")


def _no_distributed(role: str) -> MXNetError:
    return MXNetError(f"DMLC_ROLE={role}: this process was launched as a distributed "
                      f"kvstore {role}, but gluonlite has no distributed kvstore (no ps-lite "
                      f"server loop); run single-process with kvstore 'local' or 'device'")


class KVStoreServer:
    """The server of a key-value store.

    Parameters
    ----------
    kvstore : KVStore
        The store the server updates (its ``set_optimizer`` receives the optimizer a
        worker sends).
    """

    def __init__(self, kvstore):
        self.kvstore = kvstore
        self.handle = getattr(kvstore, "handle", None)
        self.init_logginig = False  # MXNet's attribute name

    def _controller(self) -> Callable:
        """The function handling a controller command ``(cmd_id, cmd_body, _)``: command
        0 carries a pickled optimizer, given to the store's ``set_optimizer``; other
        commands are reported as unknown.  The first call sets up logging with the
        server's rank in the format."""
        def server_controller(cmd_id: int, cmd_body, _=None) -> None:
            if not self.init_logginig:
                head = f"%(asctime)-15s Server[{self.kvstore.rank}] %(message)s"
                logging.basicConfig(level=logging.DEBUG, format=head)
                self.init_logginig = True
            if cmd_id == _COMMAND_SET_OPTIMIZER:
                body = cmd_body.encode("latin-1") if isinstance(cmd_body, str) else cmd_body
                self.kvstore.set_optimizer(pickle.loads(body))
            else:
                print(f"server {self.kvstore.rank}, unknown command ({cmd_id}, {cmd_body})")
        return server_controller

    def run(self) -> None:
        """Serve until the workers stop (MXNet: the ps-lite receive loop).

        Raises
        ------
        MXNetError
            Always: gluonlite has no distributed transport to receive from.
        """
        raise MXNetError("KVStoreServer.run: gluonlite has no distributed kvstore (MXNet runs "
                         "the ps-lite server loop of its C library here)")


def _init_kvstore_server_module() -> None:
    """Start the server or scheduler when this process was launched as one.

    Does nothing on a worker (``DMLC_ROLE`` unset or ``worker``).

    Raises
    ------
    MXNetError
        When ``DMLC_ROLE`` is ``server`` or ``scheduler``: gluonlite cannot serve.
    """
    role = os.environ.get("DMLC_ROLE", "worker")
    if role in _SERVING_ROLES:
        raise _no_distributed(role)


_init_kvstore_server_module()
