"""Stand-ins for the Spack modules a recipe imports, in the layout of Spack 0.2x or of Spack 1.x,
so that check_package.py can import the project's recipes under both without Spack.

They are faithful in what the recipes rely on and nothing else:

  * Spack 0.2x: `spack.package` holds the directives, the helpers and the build systems
    (CMakePackage, CudaPackage, Package); builtin recipes are `spack.pkg.builtin.<module>`
    (kokkos_nvcc_wrapper for kokkos-nvcc-wrapper).
  * Spack 1.x: `spack.package` holds the directives and helpers only; the build systems are
    `spack_repo.builtin.build_systems.{cmake,cuda,generic}` and builtin recipes
    `spack_repo.builtin.packages.<module>.package` (Package API v2).

Directives record their calls on the class being defined (`cls.directives`, a list of
(name, args, kwargs, when conditions)); nothing is evaluated. The builtin Kokkos recipes are
empty classes with the bases Spack gives them.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import types
from pathlib import Path

LAYOUTS = ("0.2x", "1.x")
# CudaPackage.cuda_arch_values of Spack 1.x (0.23 lacks 100 and 120).
CUDA_ARCH_VALUES = ("10", "11", "12", "13", "20", "21", "30", "32", "35", "37", "50", "52", "53",
                    "60", "61", "62", "70", "72", "75", "80", "86", "87", "89", "90", "100", "120")
# ROCmPackage.amdgpu_targets (a subset: the stand-in needs only that it is a tuple of names).
AMDGPU_TARGETS = ("gfx900", "gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx1030",
                  "gfx1100")
# spack.directives.SUPPORTED_LANGUAGES of Spack 0.23.0 (1.x has no such name).
SUPPORTED_LANGUAGES = ("c", "cxx", "fortran")

_pending: list[tuple] = []  # directive calls of the class body being executed
_when: list[str] = []


def _directive(name):
    def record(*args, **kwargs):
        _pending.append((name, args, kwargs, list(_when)))
    record.__name__ = name
    return record


@contextlib.contextmanager
def when(condition):
    _when.append(condition)
    try:
        yield
    finally:
        _when.pop()


class _Meta(type):
    """Moves the directive calls made in a class body onto the class (and keeps the bases')."""

    def __init__(cls, name, bases, namespace):
        super().__init__(name, bases, namespace)
        inherited = [d for b in bases for d in getattr(b, "directives", [])]
        cls.directives = inherited + _pending[:]
        cls.own_directives = _pending[:]
        _pending.clear()


class PackageBase(metaclass=_Meta):
    run_tests = False

    def __init__(self, spec):
        self.spec = spec
        self.prefix = spec.prefix

    @staticmethod
    def define(name, value):
        if isinstance(value, bool):
            value = "ON" if value else "OFF"
        return f"-D{name}={value}"

    def define_from_variant(self, name, variant):
        return self.define(name, self.spec.variants[variant].value)


def _new_module(name: str, **attrs) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__path__ = []  # every stub can be a package
    module.__dict__.update(attrs)
    return module


@contextlib.contextmanager
def layout(which: str):
    """Installs the stub modules of one Spack layout in sys.modules for the duration."""
    assert which in LAYOUTS
    Package = _Meta("Package", (PackageBase,), {"__module__": "spack.stub"})
    CMakePackage = _Meta("CMakePackage", (PackageBase,), {"__module__": "spack.stub"})
    CudaPackage = _Meta("CudaPackage", (PackageBase,),
                        {"__module__": "spack.stub", "cuda_arch_values": CUDA_ARCH_VALUES})
    ROCmPackage = _Meta("ROCmPackage", (PackageBase,),
                        {"__module__": "spack.stub", "amdgpu_targets": AMDGPU_TARGETS})
    directives = {n: _directive(n) for n in
                  ("version", "variant", "depends_on", "conflicts", "requires", "patch",
                   "maintainers", "license", "provides", "resource")}
    helpers = {"when": when, "join_path": lambda *p: "/".join(str(x) for x in p),
               "which": lambda *a, **k: None, "InstallError": RuntimeError}
    package_api = dict(directives, **helpers)
    package_api["__all__"] = list(package_api)
    builtin = {"kokkos": ("Kokkos", (CMakePackage, CudaPackage, ROCmPackage)),
               "kokkos_nvcc_wrapper": ("KokkosNvccWrapper", (Package,)),
               "kokkos_kernels": ("KokkosKernels", (CMakePackage, CudaPackage))}
    modules: dict[str, types.ModuleType] = {"spack": _new_module("spack")}
    if which == "0.2x":
        extra = {"CMakePackage": CMakePackage, "CudaPackage": CudaPackage, "ROCmPackage": ROCmPackage,
                 "Package": Package}
        modules["spack.package"] = _new_module("spack.package", **package_api, **extra)
        modules["spack.package"].__all__ += list(extra)
        modules["spack.directives"] = _new_module("spack.directives", SUPPORTED_LANGUAGES=SUPPORTED_LANGUAGES)
        modules["spack.pkg"] = _new_module("spack.pkg")
        modules["spack.pkg.builtin"] = _new_module("spack.pkg.builtin")
        for mod, (cls, bases) in builtin.items():
            name = f"spack.pkg.builtin.{mod}"
            modules[name] = _new_module(name, **{cls: _Meta(cls, bases, {"__module__": name})})
    else:
        modules["spack.package"] = _new_module("spack.package", **package_api)
        for name in ("spack_repo", "spack_repo.builtin", "spack_repo.builtin.build_systems",
                     "spack_repo.builtin.packages"):
            modules[name] = _new_module(name)
        systems = "spack_repo.builtin.build_systems"
        modules[f"{systems}.cmake"] = _new_module(f"{systems}.cmake", CMakePackage=CMakePackage)
        modules[f"{systems}.cuda"] = _new_module(f"{systems}.cuda", CudaPackage=CudaPackage)
        modules[f"{systems}.rocm"] = _new_module(f"{systems}.rocm", ROCmPackage=ROCmPackage)
        modules[f"{systems}.generic"] = _new_module(f"{systems}.generic", Package=Package)
        for mod, (cls, bases) in builtin.items():
            name = f"spack_repo.builtin.packages.{mod}.package"
            modules[name[: -len(".package")]] = _new_module(name[: -len(".package")])
            modules[name] = _new_module(name, **{cls: _Meta(cls, bases, {"__module__": name})})
    saved = {k: v for k, v in sys.modules.items() if k == "spack" or k.startswith(("spack.", "spack_repo"))}
    for k in saved:
        del sys.modules[k]
    sys.modules.update(modules)
    try:
        yield types.SimpleNamespace(CMakePackage=CMakePackage, CudaPackage=CudaPackage, ROCmPackage=ROCmPackage,
                                    Package=Package,
                                    builtin={m: getattr(modules[_builtin_module(which, m)], c)
                                             for m, (c, _) in builtin.items()})
    finally:
        for k in [k for k in sys.modules if k == "spack" or k.startswith(("spack.", "spack_repo"))]:
            del sys.modules[k]
        sys.modules.update(saved)
        _pending.clear()
        _when.clear()


def _builtin_module(which: str, mod: str) -> str:
    return f"spack.pkg.builtin.{mod}" if which == "0.2x" else f"spack_repo.builtin.packages.{mod}.package"


def load_recipe(package_py: Path, module_name: str) -> types.ModuleType:
    """Executes a package.py as Spack does (as a module of its repository's namespace)."""
    spec = importlib.util.spec_from_file_location(module_name, package_py)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------------------------
# A concrete spec, just enough for the recipe's cmake_args() and its compiler lookup.


class Prefix(str):
    def __getattr__(self, name: str) -> "Prefix":
        if name.startswith("__"):
            raise AttributeError(name)
        return Prefix(f"{self}/{name}")


class FakeSpec:
    def __init__(self, name, prefix, variants=None, deps=(), compiler="gcc", version="4.6.01"):
        self.name = name
        self.prefix = Prefix(prefix)
        self.variants = {k: types.SimpleNamespace(value=v) for k, v in (variants or {}).items()}
        self._deps = list(deps)
        self.compiler = types.SimpleNamespace(name=compiler, version=version)
        self.target = types.SimpleNamespace(optimization_flags=lambda comp, ver: "-march=x86-64-v3 -mtune=generic")

    def dependencies(self):
        return list(self._deps)

    def traverse(self):
        yield self
        for d in self._deps:
            yield from d.traverse()

    def __getitem__(self, name):
        for node in self.traverse():
            if node.name == name:
                return node
        if name == "cxx":  # Spack 0.2x has no compiler nodes
            raise KeyError(name)
        raise KeyError(name)

    def satisfies(self, text: str) -> bool:
        """Root-level +variant / ~variant / %compiler tokens, all of which must hold."""
        for token in text.split():
            if token.startswith("%"):
                if self.compiler.name != token[1:]:
                    return False
            elif token[0] in "+~":
                value = self.variants.get(token[1:])
                if value is None or bool(value.value) != (token[0] == "+"):
                    return False
            else:
                raise ValueError(f"FakeSpec cannot evaluate '{token}'")
        return True
