"""Samples for the op harness, one module per operator family.

Each module defines ``SAMPLES: dict[str, list[Sample]]`` keyed by the operator's
canonical registry name.  ``all_samples()`` merges them.
"""
import importlib
import pkgutil


def all_samples() -> dict:
    merged: dict = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for name, samples in module.SAMPLES.items():
            if name in merged:
                raise ValueError(f"samples for {name} defined twice")
            merged[name] = samples
    return merged
