"""The package's layers import downward only (docs/architecture.md names them).

Reads every module's imports with ``ast`` (imports inside functions count too) and fails on an
import of a higher layer, on a chapter of the API importing another chapter's private helper,
and on a private name taken from another package.  Pure reading: no module is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "core" / "webtensor"

# bottom to top; a module belongs to the first layer with a matching prefix
LAYERS = [
    ("foundation", ("_settings", "_warnings", "_tracing", "dtypes", "promotion", "shape", "ops",
                    "precision")),
    ("devices", ("tensor", "device", "backends", "_format", "_numpy_interop", "views")),
    ("api", ("api", "_validate", "linalg", "fft", "random", "_info", "_explorer", "_dlpack",
             "dtype_support")),
    ("compile", ("compile",)),
    ("library", ("nn", "_methods", "_heatmap")),
    ("front ends", ("tf", "nx", "symbolic")),
    ("package", ("", "__main__")),
]
# The package root is a facade: the library and the front ends call ``webtensor.<function>``
# at call time (what the user calls), which is not an upward dependency of their layer.
ROOT_FACADE_FROM = {"library", "front ends"}
# ... and one API module that looks public functions up by their public name
# (wt.function_supported_dtypes("linalg.inv")): it reads the namespace, it does not depend on it.
ROOT_FACADE_MODULES = {"dtype_support"}


def layer_of(module: str) -> int:
    """Index in LAYERS of ``module`` (dotted, relative to the package: "api.creation")."""
    for i, (_name, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or (prefix and module.startswith(prefix + ".")):
                return i
    raise AssertionError(f"{module!r} is in no layer: add it to LAYERS and docs/architecture.md")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str | None:
    """The absolute target of ``from ... import`` relative to the package (None: outside)."""
    if node.level == 0:
        name = node.module or ""
        if name != "webtensor" and not name.startswith("webtensor."):
            return None
        return name[len("webtensor."):] if name != "webtensor" else ""
    base = module.split(".") if module else []
    if not is_package:
        base = base[:-1]
    base = base[:len(base) - (node.level - 1)] if node.level > 1 else base
    return ".".join(base + ([node.module] if node.module else []))


def _exists(module: str) -> bool:
    path = ROOT.joinpath(*module.split(".")) if module else ROOT
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


# (module, path, syntax tree) of every module, parsed once
SOURCES = [(_module_name(path), path, ast.parse(path.read_text(encoding="utf-8")))
           for path in sorted(ROOT.rglob("*.py"))]


def _from_imports(module, path, tree):
    """(node, alias, absolute target, imported module or None) for each ``from ... import``
    of webtensor (the module when the name is a submodule: ``from . import shape``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _resolve(module, path.name == "__init__.py", node)
            if target is None:
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}" if target else alias.name
                yield node, alias, target, sub if _exists(sub) else None


def imports():
    """(importer, imported module, imported name or None, line) for every import."""
    for module, path, tree in SOURCES:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == "webtensor" or alias.name.startswith("webtensor."):
                        yield module, alias.name[len("webtensor."):] \
                            if alias.name != "webtensor" else "", None, node.lineno
        for node, alias, target, sub in _from_imports(module, path, tree):
            if sub is not None:
                yield module, sub, None, node.lineno
            else:
                yield module, target, alias.name, node.lineno


IMPORTS = list(imports())


def private_uses():
    """(importer, module, private name, line): names taken with ``from m import _name`` and
    attributes of imported modules (``from ..api import linalg as _la`` then ``_la._helper``)."""
    for importer, target, name, line in IMPORTS:
        if name is not None:
            yield importer, target, name, line
    for module, path, tree in SOURCES:
        aliases = {alias.asname or alias.name: sub
                   for _node, alias, _target, sub in _from_imports(module, path, tree) if sub}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in aliases:
                yield module, aliases[node.value.id], node.attr, node.lineno


def test_every_module_is_in_a_layer():
    for module, _path, _tree in SOURCES:
        layer_of(module)


def test_imports_go_downward_only():
    upward = []
    for importer, target, _name, line in IMPORTS:
        low, high = layer_of(importer), layer_of(target)
        if target == "" and (LAYERS[low][0] in ROOT_FACADE_FROM or importer in ROOT_FACADE_MODULES):
            continue
        if high > low:
            upward.append(f"{importer}:{line} ({LAYERS[low][0]}) imports {target or 'webtensor'} "
                          f"({LAYERS[high][0]})")
    assert not upward, "upward imports:\n" + "\n".join(upward)


def _package(module: str) -> str:
    return module.rsplit(".", 1)[0] if "." in module else ""


def test_no_private_helper_crosses_a_package_or_an_api_chapter():
    found = []
    for importer, target, name, line in private_uses():
        if not name.startswith("_") or name.startswith("__") or importer == target:
            continue
        if target.startswith(importer + "."):
            continue  # a package's __init__ gathering its own modules
        chapter_to_chapter = (importer.startswith("api.") and target.startswith("api.")
                              and not target.split(".")[1].startswith("_"))
        if chapter_to_chapter or _package(importer) != _package(target):
            found.append(f"{importer}:{line} takes {name} from {target}")
    assert not found, "private helpers used outside their package:\n" + "\n".join(found)


@pytest.mark.parametrize("rule", ["backends -> api", "tensor -> api", "api -> compile"])
def test_the_rules_the_architecture_names(rule):
    low, high = rule.split(" -> ")
    offending = [f"{i}:{line} -> {t}" for i, t, _n, line in IMPORTS
                 if (i == low or i.startswith(low + ".")) and (t == high or t.startswith(high + "."))]
    assert not offending, offending
