"""nx's window functions and conv against NumPy references, over random shapes, strides,
paddings and dilations, on every device.

The references are written from the definitions (a loop over the window or kernel positions
on a padded, dilated float64/int64 NumPy array, the way XLA's reduce_window and convolution
are specified), independently of webtensor.nx's strided-view compositions.  Configurations
come from a seeded generator, so every run checks the same ones.
"""

from __future__ import annotations

import itertools
import math
import random

import pytest

import webtensor as wt
import webtensor.nx as nx

np = pytest.importorskip("numpy")

pytestmark = pytest.mark.filterwarnings("ignore:webgpu. float64 work runs on the CPU")



# -- references -------------------------------------------------------------------------------

def ref_pad(x, config, value):
    """Pad with (lo, hi, interior) per axis (lo/hi may be negative: crop)."""
    for ax, (lo, hi, interior) in enumerate(config):
        n = x.shape[ax]
        if interior and n:
            shape = list(x.shape)
            shape[ax] = n + (n - 1) * interior
            out = np.full(shape, value, dtype=x.dtype)
            idx = [slice(None)] * x.ndim
            idx[ax] = slice(None, None, interior + 1)
            out[tuple(idx)] = x
            x = out
        for amount, front in ((lo, True), (hi, False)):
            if amount > 0:
                shape = list(x.shape)
                shape[ax] = amount
                block = np.full(shape, value, dtype=x.dtype)
                x = np.concatenate([block, x] if front else [x, block], axis=ax)
            elif amount < 0:
                idx = [slice(None)] * x.ndim
                idx[ax] = slice(-amount, None) if front else slice(None, x.shape[ax] + amount)
                x = x[tuple(idx)]
    return x


def same_padding(kernel):
    return [((k - 1) // 2, k - 1 - (k - 1) // 2) for k in kernel]


def ref_window(op, x, window, strides, padding, dilations):
    eff = [(w - 1) * d + 1 for w, d in zip(window, dilations)]
    if padding == "valid":
        pad = [(0, 0)] * x.ndim
    elif padding == "same":
        pad = same_padding(eff)
    else:
        pad = padding
    if op == "sum" or op == "mean":
        fill = 0
    elif op == "product":
        fill = 1
    elif x.dtype.kind == "f":
        fill = -np.inf if op == "max" else np.inf
    else:
        info = np.iinfo(x.dtype)
        fill = info.min if op == "max" else info.max
    xp = ref_pad(x, [(lo, hi, 0) for lo, hi in pad], fill)
    out_shape = [(n - e) // s + 1 for n, e, s in zip(xp.shape, eff, strides)]
    out = np.empty(out_shape, dtype=np.float64 if op == "mean" else x.dtype)
    for pos in itertools.product(*(range(n) for n in out_shape)):
        idx = tuple(np.arange(p * s, p * s + e, d) for p, s, e, d in
                    zip(pos, strides, eff, dilations))
        window_values = xp[np.ix_(*idx)]
        out[pos] = {"sum": np.sum, "product": np.prod, "max": np.max, "min": np.min,
                    "mean": np.mean}[op](window_values)
    return out


def ref_conv(x, k, strides, padding, in_dil, k_dil, fg, bg):
    batch, channels = x.shape[:2]
    out_ch, k_ch = k.shape[:2]
    m = x.ndim - 2
    xd = ref_pad(x, [(0, 0, 0), (0, 0, 0)] + [(0, 0, d - 1) for d in in_dil], 0.0)
    kd = ref_pad(k, [(0, 0, 0), (0, 0, 0)] + [(0, 0, d - 1) for d in k_dil], 0.0)
    ks = kd.shape[2:]
    if padding == "valid":
        pad = [(0, 0)] * m
    elif padding == "same":
        pad = same_padding(ks)
    else:
        pad = padding
    xp = ref_pad(xd, [(0, 0, 0), (0, 0, 0)] + [(lo, hi, 0) for lo, hi in pad], 0.0)
    out_sp = [(n - e) // s + 1 for n, e, s in zip(xp.shape[2:], ks, strides)]
    out = np.zeros((batch // bg, out_ch) + tuple(out_sp))
    og = out_ch // fg if fg > 1 else out_ch // bg
    for b in range(batch // bg):
        for o in range(out_ch):
            g = o // og
            xb = xp[b + g * (batch // bg)] if bg > 1 else xp[b]
            chans = range(g * k_ch, (g + 1) * k_ch) if fg > 1 else range(k_ch)
            for pos in itertools.product(*(range(n) for n in out_sp)):
                sl = tuple(slice(p * s, p * s + e) for p, s, e in zip(pos, strides, ks))
                patch = xb[(list(chans),) + sl]
                out[(b, o) + pos] = np.sum(patch * kd[o])
    return out


# -- random configurations --------------------------------------------------------------------

def window_configs(n: int, seed: int):
    rnd = random.Random(seed)
    out = []
    while len(out) < n:
        rank = rnd.randint(1, 3)
        shape = [rnd.randint(1, 6) for _ in range(rank)]
        window = [rnd.randint(1, 3) for _ in range(rank)]
        strides = [rnd.randint(1, 3) for _ in range(rank)]
        dil = [rnd.randint(1, 2) for _ in range(rank)]
        padding = rnd.choice(["valid", "same", "explicit"])
        if padding == "explicit":
            padding = [(rnd.randint(0, 2), rnd.randint(0, 2)) for _ in range(rank)]
        eff = [(w - 1) * d + 1 for w, d in zip(window, dil)]
        pad = same_padding(eff) if padding == "same" else \
            [(0, 0)] * rank if padding == "valid" else padding
        if all(n + lo + hi >= e for n, (lo, hi), e in zip(shape, pad, eff)):
            out.append((tuple(shape), tuple(window), strides, padding, dil))
    return out


WINDOW_CASES = window_configs(24, 7)


@pytest.mark.parametrize("op", ["sum", "max", "min", "product", "mean"])
@pytest.mark.parametrize("case", WINDOW_CASES, ids=lambda c: f"{c[0]}w{c[1]}")
def test_window_ops_match_numpy(dev, op, case):
    shape, window, strides, padding, dil = case
    rnd = np.random.default_rng(abs(hash((shape, window))) % 1000)
    values = rnd.integers(-9, 10, size=shape)
    is_float = op in ("mean", "max")
    x = values.astype(np.float32) / 4 if is_float else values.astype(np.int64)
    t = nx.tensor(x.tolist(), type="f32" if is_float else "s64", backend=dev)
    got = getattr(nx, f"window_{op}")(t, window, strides=strides, padding=padding,
                                      window_dilations=dil)
    want = ref_window(op, x, window, strides, padding, dil)
    assert got.shape == want.shape and got.device is dev
    assert nx.type(got) == (("f", 32) if is_float else ("s", 64))
    if is_float:
        np.testing.assert_allclose(np.asarray(got.tolist(), dtype=np.float64), want,
                                   rtol=1e-6, atol=1e-6)
    else:
        assert got.tolist() == want.tolist()


@pytest.mark.parametrize("case", WINDOW_CASES[:12], ids=lambda c: f"{c[0]}w{c[1]}")
def test_window_reduce_matches_numpy(dev, case):
    shape, window, strides, padding, dil = case
    x = np.random.default_rng(3).integers(-9, 10, size=shape)
    t = nx.tensor(x.tolist(), backend=dev)
    got = nx.window_reduce(t, 0, window, lambda a, b: nx.add(a, b), strides=strides,
                           padding=padding, window_dilations=dil)
    assert got.tolist() == ref_window("sum", x, window, strides, padding, dil).tolist()


def ref_window_scatter(select, x, source, init, window, strides, padding):
    pad = same_padding(window) if padding == "same" else \
        [(0, 0)] * x.ndim if padding == "valid" else padding
    xp = ref_pad(x, [(lo, hi, 0) for lo, hi in pad], init)
    out = np.full(xp.shape, init, dtype=np.float64)
    for pos in itertools.product(*(range(n) for n in source.shape)):
        best, where = None, None
        for q in itertools.product(*(range(w) for w in window)):
            at = tuple(p * s + o for p, s, o in zip(pos, strides, q))
            v = xp[at]
            if best is None or select(v, best):  # Nx: a later value that compares wins
                best, where = v, at
        out[where] += source[pos]
    crop = tuple(slice(lo, lo + n) for (lo, _), n in zip(pad, x.shape))
    return out[crop]


@pytest.mark.parametrize("kind", ["max", "min"])
@pytest.mark.parametrize("seed", range(8))
def test_window_scatter_matches_numpy(dev, kind, seed):
    rnd = random.Random(seed)
    rank = rnd.randint(1, 3)
    shape = tuple(rnd.randint(2, 6) for _ in range(rank))
    window = tuple(rnd.randint(1, min(3, n)) for n in shape)
    strides = [rnd.randint(1, 2) for _ in range(rank)]
    padding = rnd.choice(["valid", "same"])
    x = np.random.default_rng(seed).integers(-3, 4, size=shape)  # ties on purpose
    pooled = nx.window_max(nx.tensor(x.tolist(), backend=dev), window, strides=strides,
                           padding=padding)
    source = np.arange(1, math.prod(pooled.shape) + 1).reshape(pooled.shape)
    fn = nx.window_scatter_max if kind == "max" else nx.window_scatter_min
    got = fn(nx.tensor(x.tolist(), backend=dev), nx.tensor(source.tolist(), backend=dev), 0,
             window, strides=strides, padding=padding)
    select = (lambda a, b: a >= b) if kind == "max" else (lambda a, b: a <= b)
    want = ref_window_scatter(select, x, source, 0, window, strides, padding)
    assert got.shape == x.shape and nx.type(got) == ("s", 64)
    assert got.tolist() == want.astype(np.int64).tolist()


def conv_configs(n: int, seed: int):
    rnd = random.Random(seed)
    out = []
    while len(out) < n:
        m = rnd.randint(1, 2)
        fg = rnd.choice([1, 1, 2])
        bg = rnd.choice([1, 1, 2]) if fg == 1 else 1
        k_ch = rnd.randint(1, 2)
        channels = k_ch * fg
        out_ch = rnd.randint(1, 2) * fg * bg
        batch = rnd.randint(1, 2) * bg
        spatial = [rnd.randint(2, 6) for _ in range(m)]
        ksize = [rnd.randint(1, 3) for _ in range(m)]
        strides = [rnd.randint(1, 2) for _ in range(m)]
        in_dil = [rnd.choice([1, 1, 2]) for _ in range(m)]
        k_dil = [rnd.choice([1, 1, 2]) for _ in range(m)]
        padding = rnd.choice(["valid", "same", "explicit"])
        if padding == "explicit":
            padding = [(rnd.randint(-1, 2), rnd.randint(0, 2)) for _ in range(m)]
        dilated = [n + (n - 1) * (d - 1) for n, d in zip(spatial, in_dil)]
        eff = [(k - 1) * d + 1 for k, d in zip(ksize, k_dil)]
        pad = same_padding(eff) if padding == "same" else \
            [(0, 0)] * m if padding == "valid" else padding
        if all(n + lo + hi >= e for n, (lo, hi), e in zip(dilated, pad, eff)):
            out.append({"input": (batch, channels, *spatial),
                        "kernel": (out_ch, k_ch, *ksize), "strides": strides,
                        "padding": padding, "input_dilation": in_dil, "kernel_dilation": k_dil,
                        "feature_group_size": fg, "batch_group_size": bg})
    return out


CONV_CASES = conv_configs(20, 11)


@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: f"{c['input']}k{c['kernel']}")
def test_conv_matches_numpy(dev, case):
    rnd = np.random.default_rng(len(str(case)))
    x = rnd.integers(-4, 5, size=case["input"]).astype(np.float32)
    k = rnd.integers(-3, 4, size=case["kernel"]).astype(np.float32)
    opts = {key: v for key, v in case.items() if key not in ("input", "kernel")}
    got = nx.conv(nx.tensor(x.tolist(), backend=dev), nx.tensor(k.tolist(), backend=dev),
                  **opts)
    want = ref_conv(x.astype(np.float64), k.astype(np.float64), case["strides"],
                    case["padding"], case["input_dilation"], case["kernel_dilation"],
                    case["feature_group_size"], case["batch_group_size"])
    assert got.shape == want.shape and got.device is dev and nx.type(got) == ("f", 32)
    # small integers: every product and sum is exact in float32
    assert got.tolist() == want.tolist()


def test_conv_permutations_and_integer_inputs(dev):
    x = np.arange(2 * 5 * 4 * 3).reshape(2, 5, 4, 3) % 7  # channels last (N, H, W, C)
    k = (np.arange(4 * 3 * 2 * 2).reshape(4, 3, 2, 2) % 5) - 2
    got = nx.conv(nx.tensor(x.tolist(), backend=dev), nx.tensor(k.tolist(), backend=dev),
                  input_permutation=[0, 3, 1, 2], output_permutation=[0, 3, 1, 2])
    want = ref_conv(np.transpose(x, (0, 3, 1, 2)).astype(float), k.astype(float), [1, 1],
                    "valid", [1, 1], [1, 1], 1, 1)
    assert nx.type(got) == ("f", 32)  # integer inputs: Nx's conv is floating
    assert got.tolist() == np.transpose(want, (0, 2, 3, 1)).tolist()


def test_conv_errors(dev):
    x = nx.iota((1, 4, 5, 5), type="f32", backend=dev)
    with pytest.raises(ValueError, match=r"nx\.conv: size of input channels divided by "
                                         r"feature groups must match"):
        nx.conv(x, nx.iota((2, 3, 3, 3), type="f32", backend=dev))
    with pytest.raises(ValueError, match=r"nx\.conv: conv would result in empty tensor"):
        nx.conv(x, nx.iota((2, 4, 6, 6), type="f32", backend=dev))
    with pytest.raises(ValueError, match=r"nx\.conv: input shape in conv requires at least "
                                         r"rank 3"):
        nx.conv(nx.iota((4,), backend=dev), nx.iota((4,), backend=dev))
    with pytest.raises(ValueError, match=r"nx\.window_sum: invalid window dimensions, rank of "
                                         r"shape \(2\) does not match rank of window \(1\)"):
        nx.window_sum(nx.iota((3, 3), backend=dev), (2,))
    with pytest.raises(ValueError, match=r"nx\.window_max: invalid padding mode"):
        nx.window_max(nx.iota((3, 3), backend=dev), (2, 2), padding="full")


def test_conv_gradient_matches_finite_differences(dev):
    """Autodiff through the im2col composition (views, writes, matmul)."""
    rnd = np.random.default_rng(0)
    x = nx.tensor(rnd.normal(size=(1, 2, 4, 4)).tolist(), type="f64", backend=dev)
    k = nx.tensor(rnd.normal(size=(3, 2, 2, 2)).tolist(), type="f64", backend=dev)

    def loss(kernel):
        return nx.sum(nx.multiply(nx.conv(x, kernel, padding="same", strides=2), 1.5))

    g = nx.grad(k, loss)
    flat = np.asarray(k.tolist())
    eps = 1e-6
    for idx in [(0, 0, 0, 0), (1, 1, 1, 0), (2, 0, 1, 1)]:
        up, down = flat.copy(), flat.copy()
        up[idx] += eps
        down[idx] -= eps
        numeric = (loss(nx.tensor(up.tolist(), type="f64", backend=dev)).item()
                   - loss(nx.tensor(down.tolist(), type="f64", backend=dev)).item()) / (2 * eps)
        assert math.isclose(g.tolist()[idx[0]][idx[1]][idx[2]][idx[3]], numeric, rel_tol=1e-5,
                            abs_tol=1e-7)


def test_window_max_gradient_is_window_scatter_max(dev):
    x = nx.tensor([[1.0, 5.0, 2.0, 0.5], [3.0, 4.0, 8.0, 1.0]], backend=dev)
    g = nx.grad(x, lambda t: nx.sum(nx.window_max(t, (2, 2), strides=2)))
    want = nx.window_scatter_max(x, nx.tensor([[1.0, 1.0]], backend=dev), 0.0, (2, 2),
                                 strides=2)
    assert g.tolist() == want.tolist() == [[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]]
    assert isinstance(g, wt.Tensor)


@pytest.mark.parametrize("case", [c for c in CONV_CASES if c["batch_group_size"] == 1][:6]
                         + [{"input": (1, 2, 12, 11), "kernel": (2, 2, 9, 9), "strides": [1, 1],
                             "padding": "same", "input_dilation": [1, 1],
                             "kernel_dilation": [1, 1], "feature_group_size": 1,
                             "batch_group_size": 1}],
                         ids=lambda c: f"{c['input']}k{c['kernel']}")
def test_conv_gradients_match_jax(dev, case):
    """Both gradients through the patch matrix (one overlapping strided view of the input,
    whose adjoint adds the kernel positions back one at a time, or with one scatter for a 9x9
    kernel) against JAX's convolution; small integers keep every sum exact."""
    jax = pytest.importorskip("jax")
    rnd = np.random.default_rng(len(str(case)))
    x = rnd.integers(-3, 4, size=case["input"]).astype(np.float32)
    k = rnd.integers(-2, 3, size=case["kernel"]).astype(np.float32)
    opts = {key: v for key, v in case.items() if key not in ("input", "kernel")}
    m = x.ndim - 2
    eff = [(n - 1) * d + 1 for n, d in zip(k.shape[2:], case["kernel_dilation"])]
    pad = same_padding(eff) if case["padding"] == "same" else \
        [(0, 0)] * m if case["padding"] == "valid" else case["padding"]
    spatial = "HW"[:m] if m <= 2 else "DHW"
    dims = ("NC" + spatial, "OI" + spatial, "NC" + spatial)

    def jconv(a, b):
        return jax.lax.conv_general_dilated(
            a, b, case["strides"], [tuple(p) for p in pad], case["input_dilation"],
            case["kernel_dilation"], dimension_numbers=dims,
            feature_group_count=case["feature_group_size"])

    w = rnd.integers(-2, 3, size=jconv(x, k).shape).astype(np.float32)
    want_x, want_k = jax.grad(lambda a, b: (jconv(a, b) * w).sum(), argnums=(0, 1))(x, k)
    tx, tk = wt.asarray(x, device=dev), wt.asarray(k, device=dev)
    tw = wt.asarray(w, device=dev)
    gx, gk = wt.grad(lambda a, b: wt.sum(nx.conv(a, b, **opts) * tw), argnums=(0, 1))(tx, tk)
    assert gx.tolist() == np.asarray(want_x).tolist()
    assert gk.tolist() == np.asarray(want_k).tolist()
