"""``mx.kvstore`` / ``mx.kv``: the single-process key-value store."""
from .kvstore import KVStoreBase, KVStore, TestStore, create

__all__ = ["KVStoreBase", "KVStore", "TestStore", "create"]
