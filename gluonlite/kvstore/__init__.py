"""``mx.kvstore`` / ``mx.kv``: the single-process key-value store."""
from .base import KVStoreBase, TestStore, create
from .kvstore import KVStore

__all__ = ["KVStoreBase", "KVStore", "TestStore", "create"]
