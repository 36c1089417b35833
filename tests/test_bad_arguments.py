"""Every public function of wt, wt.linalg, wt.fft and wt.random, fed bad values argument by
argument: the error has the right type and names the function (and nothing is left half done).

The table is data: ``KINDS`` says what kind each parameter name is, ``BAD`` which values of a
kind are bad and which error they give, ``BASE`` the valid value each kind starts from, and
``OVERRIDES`` the functions that need other valid arguments.  A front end adds its functions
by extending ``FUNCTIONS`` (see ``collect``).  Runs on every device.
"""

from __future__ import annotations

import inspect

import pytest

import webtensor as wt
from webtensor.api import (
    creation,
    datatypes,
    elementwise,
    indexing,
    manipulation,
    searching,
    sets,
    sorting,
    statistical,
    utility,
)
from webtensor.api import linalg as linalg_api

# parameter name -> kind
KINDS = {
    **dict.fromkeys(("x", "x1", "x2", "a", "b", "v", "a1", "a2", "condition"), "tensor"),
    **dict.fromkeys(("axis", "axis1", "axis2", "source", "destination"), "axis"),
    **dict.fromkeys(("keepdims", "descending", "stable", "endpoint", "equal_nan", "upper",
                     "full_matrices", "include_initial", "return_index", "return_inverse",
                     "return_counts", "invert", "returned", "density", "replace",
                     "independent"), "flag"),
    "copy": "copy", "dtype": "dtype", "device": "device", "shape": "shape", "key": "key",
    **dict.fromkeys(("num", "n_rows", "n_cols"), "count"),
    **dict.fromkeys(("k", "offset"), "int"),
    **dict.fromkeys(("side", "indexing", "casting"), "option"),
}
# wt.tf's parameter names (TensorFlow's)
TF_KINDS = {
    **dict.fromkeys(("input", "tensor", "params", "data", "value", "values", "indices",
                     "partitions", "lengths", "seq_lengths", "updates", "mask", "x", "y",
                     "x1", "x2", "a", "b", "t", "input_tensor", "logits", "condition"),
                    "tensor"),
    "keepdims": "flag", "dims": "ints",
    **dict.fromkeys(("depth", "num_partitions", "block_size"), "tf_count"),
    **dict.fromkeys(("axis", "batch_dims", "seq_axis", "batch_axis"), "int"),
    **dict.fromkeys(("multiples", "begin", "size", "paddings", "perm", "shape"), "ints"),
    "dtype": "dtype", "mode": "option",
}
RANDOM_KINDS = {**KINDS, "k": "key"}

# kind -> [(bad value, accepted error types)]
BAD = {
    "tensor": [("abc", (TypeError,)), ({"a": 1}, (TypeError,))],
    "axis": [(1.5, (TypeError,)), (99, (ValueError, IndexError))],
    "flag": [("yes", (TypeError,))],
    "copy": [("abc", (TypeError,))],
    "dtype": [("float99", (TypeError,)), (3, (TypeError,))],
    "device": [("tpu", (ValueError,)), (3, (TypeError,))],
    "shape": [("abc", (TypeError,)), ((-2,), (ValueError,)), ((2 ** 70,), (MemoryError,))],
    "count": [(-1, (ValueError,)), (1.5, (TypeError,)), (2 ** 70, (MemoryError,))],
    "int": [(1.5, (TypeError,)), ("3", (TypeError,))],
    "ints": [("abc", (TypeError, ValueError)), ({"a": 1}, (TypeError, ValueError))],
    "key": [("abc", (TypeError,)), (1.5, (TypeError,))],
    # TensorFlow's sizes are int32: too large is its InvalidArgumentError (a ValueError)
    "tf_count": [(-1, (ValueError,)), (1.5, (TypeError,)), ("abc", (TypeError,)),
                 (2 ** 70, (MemoryError, ValueError))],
    "option": [([1], (TypeError,)), ("nope", (ValueError,))],
}


def base_value(kind, dev):
    return {
        # symmetric positive definite: every linalg function accepts it
        "tensor": wt.asarray([[2.0, 1.0], [1.0, 3.0]], device=dev), "axis": 0,
        "flag": False, "copy": None, "dtype": None, "device": dev, "shape": (2, 2),
        "count": 2, "tf_count": 2, "int": 0, "ints": [1, 1], "option": None, "key": wt.random.key(0),
    }[kind]


def _ints(d):
    return wt.asarray([[1, 2], [3, 4]], device=d)


def _vec3(d):
    return wt.asarray([1.0, 2.0, 3.0], device=d)


# name -> function(dev) -> (args, kwargs) of a valid call, where the defaults do not fit
OVERRIDES = {
    "astype": lambda d: ([wt.ones(2, device=d), wt.int32], {}),
    **dict.fromkeys(("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
                     "bitwise_right_shift", "gcd", "lcm"), lambda d: ([_ints(d), _ints(d)], {})),
    "bitwise_invert": lambda d: ([_ints(d)], {}),
    # the integer ops webtensor.nx added to the core
    **dict.fromkeys(("count_leading_zeros", "population_count"), lambda d: ([_ints(d)], {})),
    "cross": lambda d: ([_vec3(d), _vec3(d)], {}),
    "linalg.cross": lambda d: ([_vec3(d), _vec3(d)], {}),
    "linalg.outer": lambda d: ([_vec3(d), _vec3(d)], {}),
    "cumulative_sum": lambda d: ([_vec3(d)], {}), "cumulative_prod": lambda d: ([_vec3(d)], {}),
    # wt.tf: TensorFlow's argument shapes
    "tf.one_hot": lambda d: ([wt.asarray([0, 1], device=d), 3], {}),
    "tf.dynamic_partition": lambda d: ([_vec3(d), wt.asarray([0, 1, 0], device=d), 2], {}),
    "tf.sequence_mask": lambda d: ([wt.asarray([1, 2], device=d), 3], {}),
    "tf.tile": lambda d: ([_ints(d), [2, 1]], {}),
    "tf.slice": lambda d: ([_ints(d), [0, 0], [1, 2]], {}),
    "tf.pad": lambda d: ([_ints(d), [[1, 1], [0, 1]]], {}),
    "tf.reshape": lambda d: ([_ints(d), [4]], {}),
    "tf.transpose": lambda d: ([_ints(d)], {"perm": [1, 0]}),
    "tf.gather": lambda d: ([_vec3(d), wt.asarray([0, 2], device=d)], {}),
    "tf.space_to_depth": lambda d: ([wt.ones((1, 2, 2, 1), device=d), 2], {}),
    "tf.depth_to_space": lambda d: ([wt.ones((1, 1, 1, 4), device=d), 2], {}),
    "tf.saturate_cast": lambda d: ([_vec3(d)], {"dtype": wt.int32}),
    "tf.expand_dims": lambda d: ([_vec3(d), 0], {}),
    "tf.concat": lambda d: ([[_vec3(d), _vec3(d)], 0], {}),
    "tf.pack": lambda d: ([[_vec3(d), _vec3(d)]], {}),
    "tf.parallel_stack": lambda d: ([[_vec3(d), _vec3(d)]], {}),
    "tf.shape_n": lambda d: ([[_vec3(d)]], {}),
    "tf.boolean_mask": lambda d: ([_vec3(d), wt.asarray([True, False, True], device=d)], {}),
    "tf.gather_nd": lambda d: ([_ints(d), wt.asarray([[0, 1]], device=d)], {}),
    "tf.reverse_sequence": lambda d: ([_ints(d), wt.asarray([1, 2], device=d)],
                                      {"seq_axis": 1, "batch_axis": 0}),
    "tf.scatter_nd": lambda d: ([wt.asarray([[0], [1]], device=d),
                                 wt.asarray([1.0, 2.0], device=d), [3]], {}),
    "tf.dynamic_stitch": lambda d: ([[wt.asarray([1, 0], device=d)],
                                     [wt.asarray([1.0, 2.0], device=d)]], {}),
    "tf.space_to_batch": lambda d: ([wt.ones((1, 2, 2, 1), device=d), [[0, 0], [0, 0]], 2], {}),
    "tf.batch_to_space": lambda d: ([wt.ones((4, 1, 1, 1), device=d), [[0, 0], [0, 0]], 2], {}),
    "tf.Variable": lambda d: ([_vec3(d)], {}),
    "tf.cast": lambda d: ([_vec3(d), wt.int32], {}),
    "tf.setdiff1d": lambda d: ([_vec3(d), _vec3(d)], {}),
    "tf.unique_with_counts": lambda d: ([_vec3(d)], {}),
    "tf.is_tensor": None,  # takes anything (answers False)
    # wt.tf's math ops: bool / integer inputs where TensorFlow requires them
    **dict.fromkeys(("tf.logical_and", "tf.logical_or", "tf.math.logical_xor"),
                    lambda d: ([wt.asarray([True, False], device=d),
                                wt.asarray([True, True], device=d)], {})),
    **dict.fromkeys(("tf.logical_not", "tf.reduce_any", "tf.reduce_all"),
                    lambda d: ([wt.asarray([True, False], device=d)], {})),
    "tf.math.invert_permutation": lambda d: ([wt.asarray([1, 0], dtype=wt.int32, device=d)],
                                             {}),
    "tf.tensordot": lambda d: ([wt.ones((2, 2), device=d), wt.ones((2, 2), device=d), 1], {}),
    "tf.matmul": lambda d: ([wt.ones((2, 2), device=d), wt.ones((2, 2), device=d)], {}),
    "tf.scalar_mul": lambda d: ([2.0, _vec3(d)], {}),
    "tf.add_n": lambda d: ([[_vec3(d), _vec3(d)]], {}),
    "tf.math.polyval": lambda d: ([[1.0, 2.0], _vec3(d)], {}),
    "tf.where": lambda d: ([wt.asarray([True, False], device=d), 1.0, 2.0], {}),
    "tf.clip_by_value": lambda d: ([_vec3(d), 1.0, 2.0], {}),
    "tf.fill": lambda d: ([[2], 1.0], {}),
    "tf.range": lambda d: ([3], {}),
    "tf.zeros": lambda d: ([[2]], {}),
    "tf.ones": lambda d: ([[2]], {}),

    "asarray": lambda d: ([[1.0, 2.0]], {}), "tensor": lambda d: ([[1.0, 2.0]], {}),
    "arange": lambda d: ([3], {}), "linspace": lambda d: ([0, 1, 3], {}),
    "full": lambda d: ([(2,), 1.0], {}), "eye": lambda d: ([2], {}),
    "from_dlpack": None, "frombuffer": None, "meshgrid": lambda d: ([wt.ones(2, device=d)], {}),
    "broadcast_arrays": lambda d: ([wt.ones(2, device=d)], {}),
    "concat": lambda d: ([[wt.ones((2, 2), device=d)]], {}),
    "stack": lambda d: ([[wt.ones((2, 2), device=d)]], {}),
    "broadcast_to": lambda d: ([wt.ones(2, device=d), (2, 2)], {}),
    "reshape": lambda d: ([wt.ones(4, device=d), (2, 2)], {}),
    "take": lambda d: ([wt.ones((2, 2), device=d), wt.asarray([0], device=d)], {}),
    "take_along_axis": lambda d: ([wt.ones((2, 2), device=d),
                                   wt.asarray([[0], [1]], device=d)], {"axis": 1}),
    "searchsorted": lambda d: ([wt.asarray([1.0, 2.0], device=d),
                                wt.asarray([1.5], device=d)], {}),
    "where": lambda d: ([wt.asarray([True, False], device=d), 1.0, 2.0], {}),
    "matmul": lambda d: ([wt.ones((2, 2), device=d), wt.ones((2, 2), device=d)], {}),
    "tensordot": lambda d: ([wt.ones((2, 2), device=d), wt.ones((2, 2), device=d)], {}),
    "vecdot": lambda d: ([wt.ones((2, 2), device=d), wt.ones((2, 2), device=d)], {}),
}


def collect():
    """(qualified name, function) for every public function of wt, its submodules and wt.tf."""
    out = []
    for module in (creation, datatypes, elementwise, indexing, linalg_api, manipulation,
                   searching, sets, sorting, statistical, utility):
        out += [(name, getattr(wt, name)) for name in module.__all__]
    for module, prefix in ((wt.linalg, "linalg."), (wt.fft, "fft."), (wt.random, "random.")):
        for name in module.__all__:
            fn = getattr(module, name)
            if callable(fn) and not isinstance(fn, type):
                out.append((prefix + name, fn))
    out += [("tf." + name, getattr(wt.tf, name)) for name in wt.tf.__all__
            if callable(getattr(wt.tf, name)) and not isinstance(getattr(wt.tf, name), type)]
    # the math ops only tf.math has (the others are the top-level functions above)
    out += [("tf.math." + name, getattr(wt.tf.math, name)) for name in wt.tf.math.__all__
            if name not in wt.tf.__all__]
    return out


FUNCTIONS = collect()

SIZED_BY_INPUT = {"reshape"}


def kinds_of(name):
    if name.startswith("tf."):
        return TF_KINDS
    return RANDOM_KINDS if name.startswith("random.") else KINDS



def _call_parts(fn, name, dev):
    """(parameters to test, args, kwargs) of a valid call, or None when the function takes no
    parameter the table knows."""
    params = list(inspect.signature(fn).parameters.values())
    override = OVERRIDES.get(name, OVERRIDES.get(name.split(".")[-1]))
    if name in OVERRIDES and OVERRIDES[name] is None:
        return None
    if override is not None:
        args, kwargs = override(dev)
    else:
        args, kwargs = [], {}
        for p in params:
            if p.default is not inspect.Parameter.empty or p.kind in (p.VAR_POSITIONAL,
                                                                     p.VAR_KEYWORD):
                continue
            kind = kinds_of(name).get(p.name)
            if kind is None:
                return None  # a required parameter the table does not know
            if p.kind is p.KEYWORD_ONLY:
                kwargs[p.name] = base_value(kind, dev)
            else:
                args.append(base_value(kind, dev))
    tested = [p for p in params if p.name in kinds_of(name)
              and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return tested, args, kwargs


@pytest.mark.parametrize("name,fn", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_bad_arguments_name_the_function(dev, name, fn):
    parts = _call_parts(fn, name, dev)
    if parts is None:
        return  # nothing in the table applies (the function's own tests cover it)
    tested, args, kwargs = parts
    fn(*args, **kwargs)  # the valid call itself works
    # (an alias such as wt.tensor names the function it shares: wt.asarray)
    expect_name = getattr(fn, "__wt_name__", name)
    positional = [p.name for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    for p in tested:
        for bad, errors in BAD[kinds_of(name)[p.name]]:
            if name in SIZED_BY_INPUT and p.name == "shape" and bad == (2 ** 70,):
                errors = (ValueError,)  # a shape that must match the input's size
            a, k = list(args), dict(kwargs)
            if p.name in positional and positional.index(p.name) < len(a):
                a[positional.index(p.name)] = bad
            elif p.kind is p.POSITIONAL_ONLY:
                continue
            else:
                k[p.name] = bad
            with pytest.raises(errors) as info:
                fn(*a, **k)
            message = str(info.value)
            assert expect_name in message, (f"{name}({p.name}={bad!r}) raised "
                                            f"{type(info.value).__name__}: {message}")
