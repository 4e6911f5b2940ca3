"""NumPy's dtypes and constants under ``mx.np`` (MXNet's ``mx.np.utils``)."""
import numpy as onp

__all__ = ["float16", "float32", "float64", "uint8", "int32", "int8", "int64", "bool", "bool_",
           "pi", "inf", "nan", "PZERO", "NZERO", "NINF", "PINF", "e", "NAN", "NaN", "newaxis",
           "_STR_2_DTYPE_", "finfo"]

finfo = onp.finfo

float16 = onp.float16
float32 = onp.float32
float64 = onp.float64
uint8 = onp.uint8
int32 = onp.int32
int8 = onp.int8
int64 = onp.int64
bool_ = onp.bool_
bool = onp.bool_  # noqa: A001 - MXNet's name
pi = onp.pi
inf = onp.inf
nan = onp.nan
PZERO = 0.0
NZERO = -0.0
NINF = -onp.inf
PINF = onp.inf
e = onp.e
NAN = onp.nan
NaN = onp.nan
newaxis = None

_STR_2_DTYPE_ = {"float16": float16, "float32": float32, "float64": float64, "float": float64,
                 "uint8": uint8, "int8": int8, "int32": int32, "int64": int64, "int": int64,
                 "bool": bool_, "bool_": bool_, "None": None}
