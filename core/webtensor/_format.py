"""Text formatting of tensors (repr/str)."""

from __future__ import annotations


def tensor_str(t) -> str:
    return str(t.tolist())


def tensor_repr(t) -> str:
    parts = [f"shape={t.shape}", f"dtype={t.dtype.name}", f"device={t.device.name}"]
    if t.weak:
        parts.append("weak=True")
    if t.names is not None:
        parts.append(f"names={t.names}")
    return f"Tensor({tensor_str(t)}, {', '.join(parts)})"
