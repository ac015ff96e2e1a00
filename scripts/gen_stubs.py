"""Generates python/ferrotorch/_core.pyi, the type stubs of the compiled extension.

Names, members and parameters come from the live module (after `import ferrotorch`, so the
Tensor methods the Python package installs are listed too); parameters from PyO3's
`__text_signature__`; return types from the Rust bindings' signatures (rust/python/src), read
with a few patterns. Anything not recognised is `Any`. tests/test_stubs.py checks that the
committed file is this script's output.

Run: python scripts/gen_stubs.py [--check]
"""

from __future__ import annotations

import argparse
import glob
import inspect
import os
import re
import sys
import types
from typing import Any, Callable, Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "python", "ferrotorch", "_core.pyi")
RUST_SRC = os.path.join(ROOT, "rust", "python", "src")

# Annotation words a stub may copy from the Python-installed methods as they are.
SAFE_WORDS = {
    "Tensor",
    "int",
    "float",
    "bool",
    "str",
    "None",
    "Optional",
    "Tuple",
    "List",
    "Union",
    "Any",
    "tuple",
    "list",
    "dtype",
    "device",
    "Sequence",
}
# Operators that yield a tensor (PyO3 returns NotImplemented for foreign operands, as Python expects).
TENSOR_DUNDERS = {
    f"__{op}__"
    for base in (
        "add",
        "sub",
        "mul",
        "truediv",
        "floordiv",
        "mod",
        "pow",
        "matmul",
        "and",
        "or",
        "xor",
        "lshift",
        "rshift",
    )
    for op in (base, "r" + base, "i" + base)
} | {
    "__neg__",
    "__pos__",
    "__abs__",
    "__invert__",
    "__getitem__",
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
}
OVERRIDES_OBJECT = {"__eq__", "__ne__", "__hash__"}
# Bindings whose Rust signature returns a bare Python object (Py<PyAny>) or an unannotated
# lambda, with the type the object always has.
RETURN_OVERRIDES = {
    ("Tensor", "to"): "Tensor",
    ("Tensor", "cpu"): "Tensor",
    ("Tensor", "cuda"): "Tensor",
    ("Tensor", "tril_"): "Tensor",
    ("Tensor", "triu_"): "Tensor",
    ("Tensor", "where"): "Tensor",
    ("Tensor", "item"): "int | float | bool",
    ("Tensor", "get_device"): "int",
    ("Tensor", "shape"): "Size",
    ("Tensor", "__iter__"): "Iterator[Tensor]",
    ("Tensor", "__complex__"): "complex",
    ("device", "__eq__"): "bool",
    ("device", "__ne__"): "bool",
    ("dtype", "__eq__"): "bool",
    ("dtype", "__ne__"): "bool",
}

INT_TYPES = {"usize", "isize", "i64", "i32", "i16", "i8", "u64", "u32", "u16", "u8"}


def split_generic_args(text: str) -> List[str]:
    """`A, B<C, D>, (E, F)` -> ["A", "B<C, D>", "(E, F)"]."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def rust_to_python(ty: str, self_class: str, classes: Dict[str, str]) -> str:
    """The Python type of a binding's Rust return type (`Any` when unsure)."""
    ty = re.sub(r"'\w+\s*", "", ty).replace(" ", "")
    ty = re.sub(r"^(pyo3::|ferrotorch::|crate::\w+::)", "", ty)
    m = re.fullmatch(r"(?:PyResult|Result)<(.*)>", ty)
    if m:
        ty = split_generic_args(m.group(1))[0]
        return rust_to_python(ty, self_class, classes)
    for wrapper in ("PyRef<", "PyRefMut<", "Py<", "Bound<"):
        if ty.startswith(wrapper) and ty.endswith(">"):
            inner = split_generic_args(ty[len(wrapper) : -1])
            return rust_to_python(inner[-1], self_class, classes)
    ty = ty.lstrip("&")
    if ty == "Self":
        return self_class
    if ty in ("Tensor", "ferrotorch::Tensor"):
        return "Tensor"
    if ty in classes:
        return classes[ty]
    if ty == "bool":
        return "bool"
    if ty in ("f64", "f32"):
        return "float"
    if ty in INT_TYPES:
        return "int"
    if ty in ("String", "str"):
        return "str"
    if ty == "()":
        return "None"
    if ty == "DType":
        return "dtype"
    if ty.startswith("Option<") and ty.endswith(">"):
        inner = rust_to_python(ty[7:-1], self_class, classes)
        return "Any" if inner == "Any" else f"{inner} | None"
    if ty.startswith("Vec<") and ty.endswith(">"):
        return f"list[{rust_to_python(ty[4:-1], self_class, classes)}]"
    if ty.startswith("(") and ty.endswith(")"):
        items = [rust_to_python(t, self_class, classes) for t in split_generic_args(ty[1:-1])]
        return f"tuple[{', '.join(items)}]"
    return "Any"


class RustReturns:
    """Return types of the bound functions and methods, keyed by (Python class or "", name)."""

    def __init__(self) -> None:
        self.types: Dict[Tuple[str, str], str] = {}
        self.setters: Dict[str, set] = {}
        sources = {path: open(path).read() for path in sorted(glob.glob(os.path.join(RUST_SRC, "*.rs")))}
        self.classes: Dict[str, str] = {}
        for text in sources.values():
            for m in re.finditer(
                r"#\[pyclass(?:\((.*?)\))?\]\s*(?:#\[[^\]]*\]\s*)*pub(?:\([\w:]+\))?\s+struct\s+(\w+)",
                text,
                re.S,
            ):
                name = re.search(r'name\s*=\s*"(\w+)"', m.group(1) or "")
                self.classes[m.group(2)] = name.group(1) if name else m.group(2)
        for text in sources.values():
            self._scan(text)

    def _record(self, owner: str, name: str, ret: Optional[str], attrs: str) -> None:
        rename = re.search(r'#\[pyo3\([^\]]*name\s*=\s*"(\w+)"', attrs)
        if "#[setter" in attrs:
            prop = re.search(r"#\[setter\((\w+)\)\]", attrs)
            self.setters.setdefault(owner, set()).add(prop.group(1) if prop else re.sub(r"^set_", "", name))
            return
        if "#[getter" in attrs:
            prop = re.search(r"#\[getter\((\w+)\)\]", attrs)
            name = prop.group(1) if prop else re.sub(r"^get_", "", name)
        elif rename:
            name = rename.group(1)
        py = rust_to_python(ret, owner or "Any", self.classes) if ret else "None"
        self.types.setdefault((owner, name), py)

    def _scan(self, text: str) -> None:
        fn = re.compile(
            r"((?:\s*#\[[^\n]*\]\s*)*)\s*(?:pub(?:\([\w:]+\))?\s+)?fn\s+(\$?\w+)\s*(?:<[^>]*>)?\s*\((.*?)\)\s*(?:->\s*([^{;]+?))?\s*(?:where[^{]*)?\{",
            re.S,
        )
        # Methods of #[pymethods] blocks (macro bodies included) and #[pyfunction]s.
        macros: Dict[str, List[Tuple[str, str, Optional[str], str]]] = {}
        for m in re.finditer(r"macro_rules!\s*(\w+)\s*\{\s*\((.*?)\)\s*=>\s*\{(.*?)\n\}", text, re.S):
            pattern_vars = re.findall(r"\$(\w+):ident", m.group(2))
            owner = self._impl_owner(m.group(3))
            fns = [(f.group(2), f.group(4), f.group(1)) for f in fn.finditer(m.group(3))]
            macros[m.group(1)] = [
                (owner, name, ret, attrs) for name, ret, attrs in fns if name.startswith("$")
            ] + [("vars", " ".join(pattern_vars), None, "")]
        for m in re.finditer(r"(\w+)!\s*\{(.*?)\n\}", text, re.S):
            if m.group(1) not in macros or m.group(1) == "macro_rules":
                continue
            entries = macros[m.group(1)]
            pattern_vars = entries[-1][1].split()
            for line in m.group(2).split(";"):
                idents = re.findall(r"\b(\w+)\b", line.split("=>")[0].split("(")[0])
                if not idents:
                    continue
                for owner, var, ret, attrs in entries[:-1]:
                    if var[1:] in pattern_vars and pattern_vars.index(var[1:]) < len(idents):
                        self._record(owner, idents[pattern_vars.index(var[1:])], ret, attrs)
        plain = re.sub(r"macro_rules!\s*\w+\s*\{.*?\n\}", "", text, flags=re.S)
        for block in re.finditer(r"#\[pymethods\]\s*impl\s+(\w+)\s*\{(.*?)\n\}", plain, re.S):
            owner = self.classes.get(block.group(1), block.group(1))
            for f in fn.finditer(block.group(2)):
                self._record(owner, f.group(2), f.group(4), f.group(1))
        for f in re.finditer(
            r"#\[pyfunction\]((?:\s*#\[[^\n]*\])*)\s*(?:pub(?:\([\w:]+\))?\s+)?fn\s+(\w+)\s*(?:<[^>]*>)?\s*\((.*?)\)\s*(?:->\s*([^{]+?))?\s*\{",
            plain,
            re.S,
        ):
            self._record("", f.group(2), f.group(4), f.group(1))

    def _impl_owner(self, body: str) -> str:
        m = re.search(r"impl\s+(\w+)\s*\{", body)
        if m and "#[pymethods]" in body:
            return self.classes.get(m.group(1), m.group(1))
        return ""

    def get(self, owner: str, name: str) -> str:
        return RETURN_OVERRIDES.get((owner, name)) or self.types.get((owner, name), "Any")


def params_from_text_signature(sig: Optional[str]) -> Tuple[bool, str]:
    """(is a method, the parameter list with each parameter typed `Any` and defaults `...`)."""
    if sig is None:
        return True, "self, *args: Any, **kwargs: Any"
    inner = sig.strip()[1:-1]
    out, method = [], False
    for p in split_generic_args(inner) if inner else []:
        if p.startswith("$"):
            method = True
            out.append("self" if p in ("$self", "$slf") else "cls")
        elif p in ("*", "/"):
            out.append(p)
        elif p.startswith("**"):
            out.append(f"{p}: Any")
        elif p.startswith("*"):
            out.append(f"{p}: Any")
        elif "=" in p:
            out.append(f"{p.split('=')[0]}: Any = ...")
        else:
            out.append(f"{p}: Any")
    return method, ", ".join(out)


def safe_annotation(ann: Any) -> str:
    if ann is inspect.Parameter.empty:
        return "Any"
    text = ann if isinstance(ann, str) else getattr(ann, "__name__", repr(ann))
    text = re.sub(r"\b(?:_core|torch|ferrotorch)\.(?=Tensor\b)", "", text)
    words = set(re.findall(r"[A-Za-z_][\w.]*", text))
    return text if words <= SAFE_WORDS else "Any"


def params_from_python(fn: Callable[..., Any]) -> str:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return "self, *args: Any, **kwargs: Any"
    out, saw_kwonly = [], False
    for i, p in enumerate(sig.parameters.values()):
        name = "self" if i == 0 and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) else p.name
        ann = "" if name == "self" else f": {safe_annotation(p.annotation)}"
        default = " = ..." if p.default is not p.empty else ""
        if p.kind == p.VAR_POSITIONAL:
            out.append(f"*{p.name}{ann}")
            saw_kwonly = True
        elif p.kind == p.VAR_KEYWORD:
            out.append(f"**{p.name}{ann}")
        else:
            if p.kind == p.KEYWORD_ONLY and not saw_kwonly:
                out.append("*")
                saw_kwonly = True
            out.append(f"{name}{ann}{default}")
    if not out or out[0] != "self":
        out.insert(0, "self")  # a lambda or function installed as a method takes the tensor first
    return ", ".join(out)


def python_return(fn: Callable[..., Any]) -> str:
    try:
        return safe_annotation(inspect.signature(fn).return_annotation)
    except (TypeError, ValueError):
        return "Any"


def with_doc(header: str, obj: Any, indent: str, comment: str = "") -> List[str]:
    """`header ...`, or the header and the object's docstring (editors show it on hover)."""
    doc = None if type(obj).__name__ == "wrapper_descriptor" else inspect.getdoc(obj)
    if isinstance(obj, (types.FunctionType, property)) and obj.__doc__ is None:
        doc = None  # inspect.getdoc would borrow a parent's
    if not doc:
        return [f"{header} ...{comment}"]
    lines = doc.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').splitlines()
    body = [f'{indent}    """{lines[0]}'] + [f"{indent}    {line}".rstrip() for line in lines[1:]]
    if len(lines) == 1 and not lines[0].endswith('"'):
        body[-1] += '"""'
    else:
        body.append(f'{indent}    """')
    return [header + comment] + body


def class_stub(cls: type, rust: RustReturns) -> List[str]:
    name = cls.__name__
    bases = [b.__name__ for b in cls.__bases__ if b is not object]
    lines = [f"class {name}({', '.join(bases)}):" if bases else f"class {name}:"]
    body: List[str] = []
    setters = rust.setters.get(name, set())
    for attr, value in sorted(cls.__dict__.items()):
        if attr in ("__doc__", "__module__", "__dict__", "__weakref__"):
            continue
        kind = type(value).__name__
        if attr == "__new__":
            _, params = params_from_text_signature(getattr(value, "__text_signature__", None))
            body.append(f"    def __init__({params.replace('cls', 'self', 1)}) -> None: ...")
        elif kind == "getset_descriptor":
            ret = rust.get(name, attr)
            if attr in setters:
                body.append(f"    {attr}: {ret}")
            else:
                body += ["    @property", f"    def {attr}(self) -> {ret}: ..."]
        elif kind in (
            "method_descriptor",
            "wrapper_descriptor",
            "builtin_function_or_method",
            "classmethod_descriptor",
        ):
            _, params = params_from_text_signature(getattr(value, "__text_signature__", None))
            ret = "Tensor" if name == "Tensor" and attr in TENSOR_DUNDERS else rust.get(name, attr)
            if attr == "__hash__":
                ret = "int"
            ignore = (
                "  # type: ignore[override]"
                if attr in OVERRIDES_OBJECT and ret != "bool" and attr != "__hash__"
                else ""
            )
            prefix = "    @classmethod\n" if kind == "classmethod_descriptor" else ""
            body += with_doc(f"{prefix}    def {attr}({params}) -> {ret}:", value, "    ", ignore)
        elif isinstance(value, (types.FunctionType, staticmethod, classmethod)):
            fn = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
            ret = RETURN_OVERRIDES.get((name, attr)) or python_return(fn)
            body += with_doc(f"    def {attr}({params_from_python(fn)}) -> {ret}:", fn, "    ")
        elif isinstance(value, property):
            body += [
                "    @property",
                f"    def {attr}(self) -> {python_return(value.fget) if value.fget else 'Any'}: ...",
            ]
        else:
            body.append(
                f"    {attr}: {type(value).__name__ if type(value).__module__ == 'builtins' else 'Any'}"
            )
    return lines + (body or ["    ..."])


def generate() -> str:
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import ferrotorch  # noqa: F401  (installs the Python-defined Tensor methods)
    from ferrotorch import _core

    rust = RustReturns()
    out = [
        '"""Type stubs of `ferrotorch._core`, generated by scripts/gen_stubs.py: do not edit."""',
        "",
        "from typing import {typing_names}",
        "",
        "from ferrotorch._size import Size",
        "",
        "__all__: list[str]",
        "",
    ]
    names = sorted(n for n in dir(_core) if not (n.startswith("__") and n.endswith("__")))
    classes = [n for n in names if isinstance(getattr(_core, n), type)]
    for n in ["__version__"] + [n for n in names if n not in classes]:
        value = getattr(_core, n)
        if isinstance(value, types.BuiltinFunctionType):
            _, params = params_from_text_signature(value.__text_signature__)
            out += with_doc(f"def {n}({params}) -> {rust.get('', n)}:", value, "")
        else:
            ty = type(value)
            out.append(
                f"{n}: {ty.__name__ if ty.__module__ == 'builtins' or ty in (getattr(_core, c) for c in classes) else 'Any'}"
            )
    for n in classes:
        out += ["", *class_stub(getattr(_core, n), rust)]
    text = "\n".join(out) + "\n"
    body = text.split("from ferrotorch._size import Size", 1)[1]
    used = [
        n
        for n in ("Any", "Iterator", "List", "Optional", "Sequence", "Tuple", "Union")
        if re.search(rf"\b{n}\b", body)
    ]
    return text.replace("{typing_names}", ", ".join(used))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the committed stubs differ")
    args = ap.parse_args()
    text = generate()
    if args.check:
        with open(OUT) as f:
            sys.exit(0 if f.read() == text else 1)
    with open(OUT, "w") as f:
        f.write(text)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
