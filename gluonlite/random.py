"""bring-up"""
from ._rng import seed
