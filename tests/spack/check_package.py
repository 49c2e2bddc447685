#!/usr/bin/env python3
"""Checks the project's Spack recipe without Spack.

    check_package.py PROJECT_ROOT PACKAGE_PY

PACKAGE_PY is read with `ast` (never imported or executed). The checks:

  * the repository around it (PACKAGE_PY/../../../repo.yaml) declares a namespace;
  * PACKAGE_PY parses, and defines the class Spack expects for its directory name,
    deriving from CMakePackage and CudaPackage, with a docstring;
  * the `openmp` variant is declared (default True) and `~openmp` is a conflict;
  * conflicts for what cannot build (CUDA 13 with Kokkos < 4.7.01) and `requires %gcc` for +cuda;
  * the dependencies, evaluated for an OpenMP-only and an OpenMP+CUDA spec (with %gcc and
    with %clang): cmake (build, at least the project's cmake_minimum_required), kokkos
    (@3.4:, no upper bound below 5, +openmp, +cuda, +cuda_lambda only for ^kokkos@:4, ~cuda
    without CUDA, +wrapper exactly for CUDA with GCC), cuda_arch single-valued
    (multi=False, no pairwise conflicts) and passed through to kokkos and kokkos-kernels for
    every CudaPackage.cuda_arch_values, kokkos-kernels (@3.4:, +openmp, +blas, +cuda +cublas,
    no ETI variant forced), blas as an unconstrained direct link dependency (so that Spack
    0.23 applies the conflicts) and OpenBLAS only with OpenMP threads, nlopt~python,
    boost@1.71:, googletest (type test), nlohmann-json, cli11, the C language for +hdf5;
    CUDA 13 refused with every Kokkos before 4.7.01 but 4.6.01 (which spack/overrides patches);
  * issue #66: the mpi, hdf5, scalapack and cuda_aware_mpi variants declared from 0.2.0 and
    +rocm refused for 0.1; +rocm (amdgpu_target single-valued, passed to kokkos +rocm, not
    with +cuda); Kokkos 4.6.01 or later for +cuda and +rocm; Kokkos and Kokkos Kernels
    @develop/@master refused with a message; openmpi+cuda / mpich+cuda under
    +cuda_aware_mpi; cmake_args() passes PK_ENABLE_HIP, hipcc of ^hip, HDF5_ROOT and the
    ScaLAPACK of spec["scalapack"].libs; patch() rewrites the one line of
    cmake/PKVersion.cmake that names a build without .git (a release archive);
  * cmake_args(): every option X in self.define("X", ...) / self.define_from_variant("X", ...)
    is a standard CMake/Kokkos variable (CMAKE_*, Kokkos_ROOT, KokkosKernels_ROOT) or is
    declared with option(X ...) or set(X ...) in PROJECT_ROOT/CMakeLists.txt or
    PROJECT_ROOT/cmake/*.cmake; variants named by define_from_variant exist; and the options
    the recipe needs are passed the way it needs them (examples off, Kokkos' C++ standard,
    nvcc_wrapper for +cuda %gcc);
  * imported (executed) under stand-ins for Spack 0.2x's and Spack 1.x's module layouts
    (spack_stubs.py; `spack_repo.builtin...` for 1.x): the recipe and the three recipes of
    spack/overrides import and extend that layout's classes; cmake_args() finds nvcc_wrapper
    with an external Kokkos (no kokkos-nvcc-wrapper node) and with Spack's; the overrides
    declare 4.6.01 and apply, from their own directories (spack/overrides is copied on its
    own), copies of exactly the files of deps/patches/kokkos-4.6.01 (the same bytes) for
    @4.6.01 with CUDA 13.

Prints one line per check, "ok: ..." or "FAIL: ...", and exits 1 if any check failed.
Standard library only; Python 3.9 or later.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

STANDARD_CMAKE_VARS = {"Kokkos_ROOT", "KokkosKernels_ROOT", "HDF5_ROOT"}
# Variants a CudaPackage or ROCmPackage subclass has without declaring them.
CUDAPACKAGE_VARIANTS = {"cuda", "cuda_arch", "rocm", "amdgpu_target"}


class Report:
    def __init__(self) -> None:
        self.failed = 0

    def check(self, ok: bool, what: str, detail: str = "") -> bool:
        if ok:
            print(f"ok: {what}")
        else:
            self.failed += 1
            print(f"FAIL: {what}" + (f" ({detail})" if detail else ""))
        return ok


# ---------------------------------------------------------------------------------------------
# Spec strings: just enough of Spack's syntax for depends_on/conflicts/when arguments.


@dataclass
class Spec:
    text: str
    name: str | None = None
    versions: list[str] = field(default_factory=list)
    variants: dict[str, object] = field(default_factory=dict)  # +x: True, ~x: False, k=v: "v"
    compilers: list[str] = field(default_factory=list)

    def lower_bound(self) -> tuple[int, ...] | None:
        best = None
        for v in self.versions:
            for part in v.split(","):
                low = part.split(":")[0] if ":" in part else part
                if low:
                    t = version_tuple(low)
                    if t is not None and (best is None or t > best):
                        best = t
        return best


def version_tuple(text: str) -> tuple[int, ...] | None:
    text = text.lstrip("=")
    if not re.fullmatch(r"\d+(\.\d+)*", text):
        return None
    return tuple(int(x) for x in text.split("."))


_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<version>@[^\s+~%^]+)"
    r"|(?P<bool>[+~]{1,2})\s*(?P<bname>[A-Za-z0-9_]+)"
    r"|(?P<key>[A-Za-z0-9_]+)==?(?P<value>[^\s+~%^]+)"
    r"|%\s*(?P<compiler>[^\s+~^]+)"
    r"|(?P<dep>\^)"
    r"|(?P<name>[A-Za-z0-9_][A-Za-z0-9_.-]*)"
    r")"
)


def parse_spec(text: str) -> Spec:
    """Parses the root part of a spec; anything after ^ (a dependency's constraints) is kept
    in .text only."""
    spec = Spec(text=text)
    pos, first = 0, True
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError(f"cannot parse spec '{text}' at '{text[pos:]}'")
        pos = m.end()
        if m.group("dep"):
            break
        if m.group("version"):
            spec.versions.append(m.group("version")[1:])
        elif m.group("bool"):
            spec.variants[m.group("bname")] = m.group("bool")[0] == "+"
        elif m.group("key"):
            spec.variants[m.group("key")] = m.group("value")
        elif m.group("compiler"):
            spec.compilers.append(m.group("compiler").split("@")[0])
        elif m.group("name"):
            if not first or spec.name is not None:
                raise ValueError(f"unexpected word '{m.group('name')}' in spec '{text}'")
            spec.name = m.group("name")
        first = False
    return spec


@dataclass
class Config:
    """A hypothetical concrete portablekernels spec that conditions are evaluated against."""

    label: str
    variants: dict[str, object]
    compiler: str

    def satisfies(self, cond: Spec) -> bool:
        for key, value in cond.variants.items():
            if key not in self.variants or self.variants[key] != value:
                return False
        return all(c == self.compiler for c in cond.compilers)


CPU_GCC = Config("openmp-only %gcc", {"openmp": True, "cuda": False, "rocm": False}, "gcc")
GPU_GCC = Config("+cuda %gcc", {"openmp": True, "cuda": True, "rocm": False}, "gcc")
GPU_CLANG = Config("+cuda %clang", {"openmp": True, "cuda": True, "rocm": False}, "clang")
ROCM_GCC = Config("+rocm %gcc", {"openmp": True, "cuda": False, "rocm": True}, "gcc")


# ---------------------------------------------------------------------------------------------
# Walking the class body: directive calls, with the loops and `with when(...)` around them.


@dataclass
class Directive:
    name: str  # depends_on, variant, conflicts, ...
    call: ast.Call
    args: list[str | None]  # rendered positional string arguments
    kwargs: dict[str, ast.expr]
    when: list[str]  # rendered when= conditions, innermost last
    loops: list[tuple[str, str]]  # (loop variable, iterable source) around the call


class Renderer:
    """Turns string expressions into text, loop variables into {name} placeholders."""

    def __init__(self) -> None:
        self.env: dict[str, str] = {}
        self.loop_vars: set[str] = set()

    def render(self, node: ast.expr | None) -> str | None:
        if node is None:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.env[node.id]
            return "{" + node.id + "}"
        if isinstance(node, ast.JoinedStr):
            out = []
            for part in node.values:
                if isinstance(part, ast.Constant):
                    out.append(str(part.value))
                elif isinstance(part, ast.FormattedValue):
                    inner = self.render(part.value)
                    out.append(inner if inner is not None else "{" + ast.unparse(part.value) + "}")
            return "".join(out)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "format"):
            template = self.render(node.func.value)
            if template is None:
                return None
            args = [self.render(a) or "{?}" for a in node.args]
            counter = iter(range(len(args)))

            def repl(m: re.Match) -> str:
                key = m.group(1)
                if key == "":
                    idx = next(counter, None)
                    return args[idx] if idx is not None else m.group(0)
                if key.isdigit() and int(key) < len(args):
                    return args[int(key)]
                kw = {k.arg: self.render(k.value) for k in node.keywords}
                return kw.get(key) or m.group(0)

            return re.sub(r"\{(\w*)\}", repl, template)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            template = self.render(node.left)
            if template is None:
                return None
            items = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
            values = iter([self.render(i) or "{?}" for i in items])
            return re.sub(r"%s", lambda m: next(values, "%s"), template)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.render(node.left), self.render(node.right)
            return None if left is None or right is None else left + right
        return None


DIRECTIVES = {"depends_on", "variant", "conflicts", "requires", "version"}


def collect_directives(body: list[ast.stmt]) -> list[Directive]:
    found: list[Directive] = []
    renderer = Renderer()

    def visit(stmts: list[ast.stmt], when: list[str], loops: list[tuple[str, str]]) -> None:
        for st in stmts:
            if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
                call = st.value
                if isinstance(call.func, ast.Name) and call.func.id in DIRECTIVES:
                    args = [renderer.render(a) for a in call.args]
                    kwargs = {k.arg: k.value for k in call.keywords if k.arg}
                    conds = list(when)
                    own = kwargs.get("when")
                    if own is None and call.func.id in ("depends_on", "conflicts") and len(call.args) > 1:
                        own = call.args[1]
                    if own is not None:
                        conds.append(renderer.render(own) or "<unreadable>")
                    found.append(Directive(call.func.id, call, args, kwargs, conds, list(loops)))
            elif isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                value = renderer.render(st.value)
                if value is not None:
                    renderer.env[st.targets[0].id] = value
            elif isinstance(st, ast.For) and isinstance(st.target, ast.Name):
                var = st.target.id
                saved = renderer.env.pop(var, None)
                visit(st.body, when, loops + [(var, ast.unparse(st.iter))])
                if saved is not None:
                    renderer.env[var] = saved
            elif isinstance(st, (ast.With,)):
                extra = []
                for item in st.items:
                    ctx = item.context_expr
                    if (isinstance(ctx, ast.Call) and isinstance(ctx.func, ast.Name)
                            and ctx.func.id == "when" and ctx.args):
                        extra.append(renderer.render(ctx.args[0]) or "<unreadable>")
                visit(st.body, when + extra, loops)
            elif isinstance(st, ast.If):
                visit(st.body, when, loops)
                visit(st.orelse, when, loops)

    visit(body, [], [])
    return found


# ---------------------------------------------------------------------------------------------


def spack_class_name(pkg_dir_name: str) -> str:
    """Spack's mod_to_class: 'kokkos-kernels' -> 'KokkosKernels', '3proxy' -> '_3proxy'."""
    parts = re.split(r"[-_]", pkg_dir_name)
    name = "".join(p[:1].upper() + p[1:] for p in parts if p)
    return "_" + name if name[:1].isdigit() else name


def strip_cmake_comments(text: str) -> str:
    text = re.sub(r"#\[(=*)\[.*?\]\1\]", "", text, flags=re.S)  # bracket comments
    out = []
    for line in text.splitlines():
        in_quotes, cut = False, len(line)
        for i, ch in enumerate(line):
            if ch == '"' and (i == 0 or line[i - 1] != "\\"):
                in_quotes = not in_quotes
            elif ch == "#" and not in_quotes:
                cut = i
                break
        out.append(line[:cut])
    return "\n".join(out)


def check_repo_yaml(report: Report, package_py: Path) -> None:
    repo_yaml = package_py.resolve().parent.parent.parent / "repo.yaml"
    if not report.check(repo_yaml.is_file(), f"repo.yaml exists at {repo_yaml}"):
        return
    text = repo_yaml.read_text(encoding="utf-8")
    has_repo = re.search(r"^repo:\s*$", text, re.M) is not None
    m = re.search(r"^\s+namespace:\s*['\"]?([^'\"\s#]*)['\"]?\s*(#.*)?$", text, re.M)
    namespace = m.group(1) if m else ""
    report.check(has_repo and m is not None and namespace.isidentifier(),
                 f"repo.yaml has a `namespace:` line under `repo:` ({namespace or 'none'})",
                 "expected 'repo:' then an indented 'namespace: <python identifier>'")


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: check_package.py PROJECT_ROOT PACKAGE_PY", file=sys.stderr)
        return 2
    root, package_py = Path(argv[1]), Path(argv[2])
    report = Report()

    check_repo_yaml(report, package_py)

    try:
        source = package_py.read_text(encoding="utf-8")
        tree = ast.parse(source, filename=str(package_py))
    except (OSError, SyntaxError, ValueError) as err:
        report.check(False, f"{package_py} parses", f"{type(err).__name__}: {err}")
        return 1
    report.check(True, f"{package_py.name} parses")

    def base_name(b: ast.expr) -> str:
        return b.attr if isinstance(b, ast.Attribute) else (b.id if isinstance(b, ast.Name) else "")

    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)
               and {"CMakePackage", "CudaPackage"} <= {base_name(b) for b in n.bases}]
    if not report.check(len(classes) == 1, "one class derives from CMakePackage and CudaPackage",
                        f"found {len(classes)}"):
        return 1
    cls = classes[0]
    expected = spack_class_name(package_py.resolve().parent.name)
    report.check(cls.name == expected,
                 f"class name {cls.name} is the one Spack expects for '{package_py.resolve().parent.name}'",
                 f"Spack looks for class {expected}")
    report.check(bool(ast.get_docstring(cls)), "the class has a docstring")

    try:
        directives = collect_directives(cls.body)
    except ValueError as err:
        report.check(False, "directives are readable", str(err))
        return 1

    # -- versions and variants ----------------------------------------------------------------
    report.check(any(d.name == "version" for d in directives), "at least one version() is declared")
    variants = {d.args[0]: d for d in directives if d.name == "variant" and d.args and d.args[0]}
    openmp = variants.get("openmp")
    default = openmp.kwargs.get("default") if openmp else None
    report.check(openmp is not None and isinstance(default, ast.Constant) and default.value is True,
                 "variant 'openmp' is declared with default=True")
    report.check(any(d.name == "conflicts" and d.args and d.args[0] and d.args[0].strip() == "~openmp"
                     and isinstance(d.kwargs.get("msg"), (ast.Constant, ast.JoinedStr))
                     for d in directives),
                 "conflicts('~openmp', msg=...) is declared")

    # -- dependencies -------------------------------------------------------------------------
    deps: list[tuple[Spec, list[Spec], Directive]] = []
    for d in directives:
        if d.name != "depends_on":
            continue
        if not d.args or d.args[0] is None:
            report.check(False, f"depends_on at line {d.call.lineno} is readable", ast.unparse(d.call))
            continue
        try:
            deps.append((parse_spec(d.args[0]), [parse_spec(w) for w in d.when], d))
        except ValueError as err:
            report.check(False, f"depends_on at line {d.call.lineno} is readable", str(err))

    def dep_types(d: Directive) -> set[str]:
        t = d.kwargs.get("type")
        if t is None:
            return {"build", "link"}
        if isinstance(t, ast.Constant) and isinstance(t.value, str):
            return {t.value}
        if isinstance(t, (ast.Tuple, ast.List)):
            return {e.value for e in t.elts if isinstance(e, ast.Constant)}
        return set()

    def applicable(name: str, cfg: Config) -> list[tuple[Spec, Directive]]:
        """depends_on(name...) calls that apply to cfg (loop-placeholder ones never do)."""
        out = []
        for spec, conds, d in deps:
            if spec.name == name and all(cfg.satisfies(c) for c in conds):
                out.append((spec, d))
        return out

    def merged(name: str, cfg: Config) -> tuple[dict[str, object], tuple[int, ...] | None]:
        vs: dict[str, object] = {}
        low = None
        for spec, _ in applicable(name, cfg):
            vs.update(spec.variants)
            b = spec.lower_bound()
            if b is not None and (low is None or b > low):
                low = b
        return vs, low

    def fmt(t: tuple[int, ...] | None) -> str:
        return ".".join(map(str, t)) if t else "none"

    # cmake, against the project's cmake_minimum_required
    top = root / "CMakeLists.txt"
    top_text = strip_cmake_comments(top.read_text(encoding="utf-8")) if top.is_file() else ""
    report.check(bool(top_text), f"{top} exists")
    m = re.search(r"cmake_minimum_required\s*\(\s*VERSION\s+([0-9.]+)", top_text, re.I)
    need_cmake = version_tuple(m.group(1)) if m else None
    cmake_deps = [(s, d) for s, d in applicable("cmake", CPU_GCC)]
    cmake_low = max((s.lower_bound() or ()) for s, _ in cmake_deps) if cmake_deps else None
    report.check(bool(cmake_deps) and all("build" in dep_types(d) for _, d in cmake_deps)
                 and need_cmake is not None and bool(cmake_low) and cmake_low >= need_cmake,
                 f"depends_on cmake@{fmt(need_cmake)}: (type build), as cmake_minimum_required asks",
                 f"recipe has cmake lower bound {fmt(cmake_low)}")

    for pkg in ("kokkos", "kokkos-kernels"):
        for cfg in (CPU_GCC, GPU_GCC):
            _, low = merged(pkg, cfg)
            report.check(low is not None and low >= (3, 4), f"{pkg}@3.4: for {cfg.label}",
                         f"lower bound {fmt(low)}")

    def want(pkg: str, cfg: Config, variant: str, value: object = True) -> None:
        vs, _ = merged(pkg, cfg)
        sign = "+" if value is True else "~"
        report.check(vs.get(variant) == value, f"{pkg}{sign}{variant} for {cfg.label}",
                     f"no depends_on giving {pkg}{sign}{variant} applies")

    want("kokkos", CPU_GCC, "openmp")
    want("kokkos", GPU_GCC, "openmp")
    want("kokkos", GPU_GCC, "cuda")
    want("kokkos", GPU_GCC, "cuda_lambda")
    want("kokkos", CPU_GCC, "cuda", False)
    want("kokkos", GPU_GCC, "wrapper")
    wrapper_cpu = merged("kokkos", CPU_GCC)[0].get("wrapper") is True
    wrapper_clang = merged("kokkos", GPU_CLANG)[0].get("wrapper") is True
    report.check(not wrapper_cpu and not wrapper_clang,
                 "kokkos+wrapper only when +cuda %gcc (not without CUDA, not for %clang)",
                 f"applies to openmp-only: {wrapper_cpu}, to +cuda %clang: {wrapper_clang}")
    want("kokkos-kernels", CPU_GCC, "openmp")
    want("kokkos-kernels", CPU_GCC, "blas")
    want("kokkos-kernels", GPU_GCC, "openmp")
    want("kokkos-kernels", GPU_GCC, "cuda")
    want("kokkos-kernels", GPU_GCC, "cublas")
    want("kokkos-kernels", CPU_GCC, "cuda", False)
    # What cannot build must be refused with a reason, not left to fail in the build.
    def refused(name: str, first: str, when_has: str) -> bool:
        return any(d.name == name and d.args and d.args[0] and d.args[0].replace(" ", "") == first
                   and when_has in " ".join(w or "" for w in d.when) and d.call.keywords
                   and any(k.arg == "msg" for k in d.call.keywords) for d in directives)
    # Kokkos Kernels' explicit instantiations are the site's choice: a recipe that forces them
    # cannot reuse a site's Kokkos Kernels and makes nvcc compile every instantiation.
    for cfg in (CPU_GCC, GPU_GCC):
        forced = sorted(v for v in merged("kokkos-kernels", cfg)[0] if v.startswith(("execspace_", "memspace_")))
        report.check(not forced, f"no Kokkos Kernels ETI variant forced for {cfg.label}", ", ".join(forced))
    want("nlopt", CPU_GCC, "python", False)
    _, boost_low = merged("boost", CPU_GCC)
    report.check(boost_low is not None and boost_low >= (1, 71), "boost@1.71: (find_package(Boost 1.71))",
                 f"lower bound {fmt(boost_low)}")

    for pkg in ("kokkos", "kokkos-kernels"):
        ok = False
        for spec, conds, d in deps:
            arch_loops = [var for var, it in d.loops if it.endswith("cuda_arch_values")]
            for var in arch_loops:
                ph = "{" + var + "}"
                if (spec.name == pkg and spec.variants.get("cuda_arch") == ph
                        and any(c.variants.get("cuda_arch") == ph for c in conds)
                        and any(c.variants.get("cuda") is True for c in conds)):
                    ok = True
        report.check(ok, f"cuda_arch passed through to {pkg} for each CudaPackage.cuda_arch_values",
                     f"expected, in a loop over CudaPackage.cuda_arch_values, depends_on('{pkg} "
                     "cuda_arch=<arch>', when='+cuda cuda_arch=<arch>')")

    gtest = applicable("googletest", GPU_GCC)
    report.check(bool(gtest) and all(dep_types(d) == {"test"} for _, d in gtest),
                 "depends_on googletest (type test)")
    for pkg in ("nlohmann-json", "cli11"):
        report.check(bool(applicable(pkg, CPU_GCC)), f"depends_on {pkg}")
    # CMake never looks for a BLAS: Kokkos Kernels (+blas) brings it. The recipe names it as
    # a direct (link) dependency all the same, because Spack 0.23 checks `^openblas` in
    # conflicts against direct dependencies only; it never picks a BLAS itself.
    blas = applicable("blas", CPU_GCC)
    report.check(bool(blas) and all(dep_types(d) == {"link"} and not s.variants and not s.versions for s, d in blas)
                 and not applicable("openblas", CPU_GCC),
                 "depends_on('blas', type='link'), no constraint and no openblas (for the OpenBLAS conflicts)")
    for threads in ("none", "pthreads"):
        report.check(refused("conflicts", f"^openblasthreads={threads}", ""),
                     f"conflicts('^openblas threads={threads}', msg=...): OpenBLAS must use OpenMP threads")
    # Kokkos 5 (C++20, device lambdas always on) can be chosen: no upper bound below 5, and
    # +cuda_lambda, an option Kokkos 5 dropped, only asked of Kokkos 4 and older.
    uppers = [v for spec, _, _ in deps if spec.name == "kokkos" for v in spec.versions if ":" in v and v.split(":")[1]]
    report.check(all(version_tuple(u.split(":")[1]) >= (5,) for u in uppers if version_tuple(u.split(":")[1])),
                 "kokkos@5 is allowed (no upper version bound below 5)", ", ".join(uppers))
    lambda_deps = [d for spec, _, d in deps if spec.name == "kokkos" and spec.variants.get("cuda_lambda") is True]
    report.check(bool(lambda_deps) and all(any("^kokkos@:4" in w.replace(" ", "") for w in d.when) for d in lambda_deps),
                 "kokkos+cuda_lambda only when ^kokkos@:4 (Kokkos 5 has no such option)")
    # What cannot build with CUDA 13: every Kokkos before 4.7.01 but the patched 4.6.01.
    for versions in ("@:4.6.00", "@4.6.02:4.7.00"):
        report.check(refused("conflicts", "^cuda@13:", f"^kokkos{versions}"),
                     f"conflicts('^cuda@13:', when='+cuda ^kokkos{versions}', msg=...): no CUDA 13 before 4.7.01")
    report.check(not any(d.name == "conflicts" and "^kokkos@:4.7" in " ".join(d.when).replace(" ", "")
                         for d in directives),
                 "no CUDA 13 conflict covers Kokkos 4.6.01, which builds with spack/overrides")
    # cuda_arch: one value, as Spack's kokkos recipe declares it, and no pairwise conflicts.
    arch = variants.get("cuda_arch")
    multi = arch.kwargs.get("multi") if arch else None
    report.check(arch is not None and isinstance(multi, ast.Constant) and multi.value is False
                 and ast.unparse(arch.kwargs.get("when", ast.Constant(None))) in ("'+cuda'", '"+cuda"'),
                 "variant('cuda_arch', multi=False, when='+cuda') is declared")
    pairwise = [d for d in directives if d.name == "conflicts" and d.args and d.args[0] and "," in d.args[0]
                and "cuda_arch=" in d.args[0]]
    report.check(not pairwise, "no pairwise cuda_arch conflicts", f"{len(pairwise)} found")
    report.check(refused("requires", "%gcc", "+cuda"), "requires('%gcc', when='+cuda', msg=...)")
    cxx = applicable("cxx", CPU_GCC)
    report.check(bool(cxx) and all("build" in dep_types(d) for _, d in cxx),
                 "depends_on cxx (type build): the C++ compiler, needed by Spack 1.x")
    hdf5_cfg = Config("+mpi +hdf5 %gcc", dict(CPU_GCC.variants, mpi=True, hdf5=True), "gcc")
    c_lang = applicable("c", hdf5_cfg)
    report.check(bool(c_lang) and all(dep_types(d) == {"build"} for _, d in c_lang)
                 and not applicable("c", CPU_GCC),
                 "depends_on c (type build) for +hdf5: the project's FindHDF5 compiles C")

    # Issue #66, item by item.
    # Variants of what came after 0.1.0 exist only for the versions that have it.
    for name in ("mpi", "hdf5", "scalapack", "cuda_aware_mpi"):
        v = variants.get(name)
        when = ast.unparse(v.kwargs["when"]) if v is not None and "when" in v.kwargs else ""
        report.check("@0.2.0:" in when, f"variant '{name}' is declared when='@0.2.0: ...' (0.1.0 has no {name})",
                     f"when={when or 'none'}")
    report.check(refused("conflicts", "+rocm", "@:0.1"), "conflicts('+rocm', when='@:0.1', msg=...)")
    rarch = variants.get("amdgpu_target")
    rmulti = rarch.kwargs.get("multi") if rarch else None
    report.check(rarch is not None and isinstance(rmulti, ast.Constant) and rmulti.value is False
                 and ast.unparse(rarch.kwargs.get("when", ast.Constant(None))) in ("'+rocm'", '"+rocm"'),
                 "variant('amdgpu_target', multi=False, when='+rocm') is declared (as for cuda_arch)")
    report.check(refused("conflicts", "+rocm", "amdgpu_target=none"), "conflicts('+rocm', when='amdgpu_target=none')")
    report.check(refused("conflicts", "+cuda", "+rocm"), "conflicts('+cuda', when='+rocm'): one GPU backend")
    want("kokkos", ROCM_GCC, "rocm")
    want("kokkos", ROCM_GCC, "openmp")
    want("kokkos", CPU_GCC, "rocm", False)
    want("kokkos", ROCM_GCC, "cuda", False)
    # The GPU backends only on Kokkos 4.6.01 and later: nothing left for which Spack would build
    # a second CUDA (12.x, for Kokkos 4.3.01) beside a site's CUDA 13.
    for cfg in (GPU_GCC, ROCM_GCC):
        _, low = merged("kokkos", cfg)
        report.check(low is not None and low >= (4, 6, 1), f"kokkos@4.6.01: for {cfg.label}", f"lower bound {fmt(low)}")
    # Unpinned branches refused, with a message that says what to do.
    for pkg in ("kokkos", "kokkos-kernels"):
        for branch in ("develop", "master"):
            report.check(refused("conflicts", f"^{pkg}@{branch}", ""), f"conflicts('^{pkg}@{branch}', msg=...)")
    # +mpi +cuda prefers an MPI built with CUDA where Spack builds the MPI.
    aware = [s for s, conds, d in deps if s.variants.get("cuda") is True and s.name in ("openmpi", "mpich")
             and any("cuda_aware_mpi" in c.variants for c in conds)]
    report.check({s.name for s in aware} == {"openmpi", "mpich"},
                 "openmpi+cuda and mpich+cuda when +cuda_aware_mpi (default on for +mpi +cuda)")

    # -- cmake_args -----------------------------------------------------------------------------
    funcs = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "cmake_args"]
    if not report.check(len(funcs) == 1, "cmake_args() is defined"):
        return 1
    func = funcs[0]

    cmake_files = [top] + sorted((root / "cmake").glob("*.cmake"))
    cmake_text = {p: strip_cmake_comments(p.read_text(encoding="utf-8")) for p in cmake_files if p.is_file()}

    def declared_in(name: str) -> list[Path]:
        pat = re.compile(r"\b(?:option|set|find_library)\s*\(\s*\"?" + re.escape(name) + r"\"?(?=[\s)])", re.I)
        return [p for p, t in cmake_text.items() if pat.search(t)]

    # Parent links, to know which `if` a define sits in.
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(func):
        for child in ast.iter_child_nodes(node):
            parents[child] = node

    defines: dict[str, list[tuple[str, ast.Call]]] = {}
    for node in ast.walk(func):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "self"
                and node.func.attr in ("define", "define_from_variant")):
            continue
        first = node.args[0] if node.args else None
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            report.check(False, f"option name at line {node.lineno} is a string literal", ast.unparse(node))
            continue
        defines.setdefault(first.value, []).append((node.func.attr, node))

    for name in sorted(defines):
        if name.startswith("CMAKE_") or name in STANDARD_CMAKE_VARS:
            report.check(True, f"cmake_args sets {name} (standard CMake/Kokkos variable)")
            continue
        where = declared_in(name)
        report.check(bool(where),
                     f"cmake_args sets {name}, declared by option()/set() in "
                     + (", ".join(str(p.relative_to(root)) for p in where) or "the project"),
                     "not found as option(" + name + " or set(" + name
                     + " in CMakeLists.txt or cmake/*.cmake")
        for kind, call in defines[name]:
            if kind == "define_from_variant":
                var = call.args[1] if len(call.args) > 1 else None
                vname = var.value if isinstance(var, ast.Constant) else None
                report.check(vname in variants or vname in CUDAPACKAGE_VARIANTS,
                             f"{name} comes from an existing variant ({vname})")

    def value_src(name: str) -> list[str]:
        return [ast.unparse(c.args[1]) if len(c.args) > 1 else "" for _, c in defines.get(name, [])]

    def inside_if(call: ast.Call, needle: str) -> bool:
        node = parents.get(call)
        while node is not None:
            if isinstance(node, ast.If) and needle in ast.unparse(node.test):
                return True
            node = parents.get(node)
        return False

    report.check(any('["kokkos"]' in v.replace("'", '"') and v.endswith(".prefix") for v in value_src("Kokkos_ROOT")),
                 "Kokkos_ROOT is spec['kokkos'].prefix")
    report.check(any('["kokkos-kernels"]' in v.replace("'", '"') and v.endswith(".prefix")
                     for v in value_src("KokkosKernels_ROOT")),
                 "KokkosKernels_ROOT is spec['kokkos-kernels'].prefix")
    report.check(any(v in ("False", "'OFF'", '"OFF"') for v in value_src("PK_BOOTSTRAP_KOKKOS")),
                 "PK_BOOTSTRAP_KOKKOS is False (Spack's Kokkos, never the bootstrap)")
    report.check(any(k == "define_from_variant" and len(c.args) > 1 and isinstance(c.args[1], ast.Constant)
                     and c.args[1].value == "cuda" for k, c in defines.get("PK_ENABLE_CUDA", [])),
                 "PK_ENABLE_CUDA follows the cuda variant")
    report.check(value_src("PK_ENABLE_TESTS") == ["self.run_tests"],
                 "PK_ENABLE_TESTS follows self.run_tests (googletest is a test-only dependency)")
    report.check(any(v in ("True", "'ON'", '"ON"') for v in value_src("PK_ENABLE_BENCHMARKS")),
                 "PK_ENABLE_BENCHMARKS is True (pk-bench is installed)")
    report.check(any(k == "define" and len(c.args) > 1 and "_nvcc_wrapper" in ast.unparse(c.args[1])
                     and inside_if(c, "+cuda %gcc") for k, c in defines.get("CMAKE_CXX_COMPILER", [])),
                 "CMAKE_CXX_COMPILER is Kokkos' nvcc_wrapper when +cuda %gcc")
    report.check(any(k == "define_from_variant" and len(c.args) > 1 and isinstance(c.args[1], ast.Constant)
                     and c.args[1].value == "rocm" for k, c in defines.get("PK_ENABLE_HIP", [])),
                 "PK_ENABLE_HIP follows the rocm variant")
    report.check(any(k == "define" and len(c.args) > 1 and "hipcc" in ast.unparse(c.args[1])
                     and '["hip"]' in ast.unparse(c.args[1]).replace("'", '"') and inside_if(c, "+rocm")
                     for k, c in defines.get("CMAKE_CXX_COMPILER", [])),
                 "CMAKE_CXX_COMPILER is the hip dependency's hipcc when +rocm")
    report.check(any('["scalapack"].libs' in v.replace("'", '"') for v in value_src("PK_SCALAPACK_LIBRARY")),
                 "PK_SCALAPACK_LIBRARY is spec['scalapack'].libs (MKL, Cray LibSci; not a lookup by name)")
    report.check(any('["hdf5"].prefix' in v.replace("'", '"') for v in value_src("HDF5_ROOT")),
                 "HDF5_ROOT is spec['hdf5'].prefix")
    report.check(any(v in ("False", "'OFF'", '"OFF"') for v in value_src("PK_ENABLE_EXAMPLES")),
                 "PK_ENABLE_EXAMPLES is False (installs build no examples/)")
    report.check(any('["kokkos"]' in v.replace("'", '"') and "cxxstd" in v for v in value_src("CMAKE_CXX_STANDARD")),
                 "CMAKE_CXX_STANDARD is Kokkos' cxxstd (C++20 with Kokkos 5)")

    # A release archive has no .git: patch() rewrites the line of cmake/PKVersion.cmake that
    # names such a build, so that the records name the release and its commit.
    patch_fn = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "patch"]
    patch_src = ast.unparse(patch_fn[0]) if patch_fn else ""
    version_cmake = root / "cmake" / "PKVersion.cmake"
    m = re.search(r"_no_git_line\s*=\s*r?'([^']*)'", source)
    lines = ([ln for ln in version_cmake.read_text(encoding="utf-8").splitlines() if re.search(m.group(1), ln)]
             if m and version_cmake.is_file() else [])
    report.check("filter_file" in patch_src and "PKVersion.cmake" in patch_src and "_releases" in patch_src
                 and len(lines) == 1,
                 "patch() names the release in the records (one PK_COMMIT line of cmake/PKVersion.cmake)",
                 f"{len(lines)} matching lines")

    check_imports(report, root)
    return 1 if report.failed else 0



# ---------------------------------------------------------------------------------------------
# The recipes imported under stand-ins for Spack 0.2x's and Spack 1.x's module layouts.


def check_imports(report: Report, root: Path) -> None:
    """Imports the recipe and the overrides of spack/overrides under both layouts of
    spack_stubs.py; checks their bases, the compiler lookup with an external Kokkos, and
    that the overrides' patches are the very files of deps/patches."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import spack_stubs as stubs
    from spack_stubs import FakeSpec

    package_py = root / "spack" / "packages" / "portablekernels" / "package.py"
    overrides = root / "spack" / "overrides" / "packages"
    patches_dir = root / "deps" / "patches" / "kokkos-4.6.01"
    all_patches = sorted(patches_dir.glob("*.patch"))
    report.check(bool(all_patches), "deps/patches/kokkos-4.6.01 holds patches")
    # The patches each override applies, and the builtin module it must extend.
    wanted = {"kokkos": ("kokkos", all_patches),
              "kokkos-nvcc-wrapper": ("kokkos_nvcc_wrapper", [p for p in all_patches if "nvcc-wrapper" in p.name]),
              "kokkos-kernels": ("kokkos_kernels", [])}
    # (what, Kokkos' dependency nodes, root variants, compiler, the C++ compiler cmake_args sets)
    compiler_cases = [
        ("an external Kokkos (no kokkos-nvcc-wrapper node)", [], {"cuda": True}, "gcc",
         "/site/kokkos/bin/nvcc_wrapper"),
        ("Kokkos +wrapper built by Spack", [FakeSpec("kokkos-nvcc-wrapper", "/site/wrapper")], {"cuda": True},
         "gcc", "/site/wrapper/bin/nvcc_wrapper"),
        ("+cuda %clang", [], {"cuda": True}, "clang", None),
        ("~cuda", [], {"cuda": False}, "gcc", None),
        ("+rocm (hipcc of the hip dependency)", [], {"cuda": False, "rocm": True}, "gcc", "/usr/bin/hipcc"),
    ]

    for layout in stubs.LAYOUTS:
        where = f"(Spack {layout} layout)"
        with stubs.layout(layout) as spack:
            try:
                cls = stubs.load_recipe(package_py, "pk_recipe").Portablekernels
            except Exception as err:  # what Spack would report as a broken recipe
                report.check(False, f"package.py imports {where}", f"{type(err).__name__}: {err}")
                continue
            report.check(issubclass(cls, spack.CMakePackage) and issubclass(cls, spack.CudaPackage),
                         f"package.py imports, deriving from that layout's CMakePackage and CudaPackage {where}")
            for label, kokkos_deps, variants, compiler, want in compiler_cases:
                kokkos = FakeSpec("kokkos", "/site/kokkos", {"cxxstd": "17"}, deps=kokkos_deps)
                spec = FakeSpec("portablekernels", "/site/pk",
                                dict({"rocm": False}, **variants, mpi=False, hdf5=False, scalapack=False),
                                deps=[kokkos, FakeSpec("kokkos-kernels", "/site/kk"), FakeSpec("hip", "/usr")],
                                compiler=compiler)
                try:
                    args = cls(spec).cmake_args()
                    found = [a.split("=", 1)[1] for a in args if a.startswith("-DCMAKE_CXX_COMPILER=")]
                    got = found[0] if found else None
                except Exception as err:
                    got = f"{type(err).__name__}: {err}"
                report.check(got == want, f"cmake_args() C++ compiler for {label}: {want or 'left to Spack'} {where}",
                             f"got {got}")

            for name, (module, patches) in wanted.items():
                py = overrides / name / "package.py"
                try:
                    over = getattr(stubs.load_recipe(py, f"pk_override_{module}"), spack_class_name(name))
                except Exception as err:
                    report.check(False, f"spack/overrides/{name} imports {where}", f"{type(err).__name__}: {err}")
                    continue
                report.check(issubclass(over, spack.builtin[module]),
                             f"spack/overrides/{name} subclasses the builtin recipe {where}")
                own = over.own_directives
                report.check(any(d[0] == "version" and d[1][:1] == ("4.6.01",) and d[2].get("sha256") for d in own),
                             f"spack/overrides/{name} declares 4.6.01 with its sha256 {where}")
                # Copies beside the recipe (spack/overrides is copied on its own), byte for byte
                # the files of deps/patches that deps/bootstrap.sh applies.
                applied = [(py.parent / d[1][0], " ".join(d[3] + [d[2].get("when", "")]))
                           for d in own if d[0] == "patch"]
                files = [f for f, _ in applied]
                exact = (len(files) == len(patches)
                         and all(f.parent == py.parent and f.is_file() for f in files)
                         and all(any(f.name == p.name and f.read_bytes() == p.read_bytes() for f in files)
                                 for p in patches))
                report.check(exact, f"spack/overrides/{name} applies, from its own directory, copies of exactly "
                             f"{', '.join('deps/patches/kokkos-4.6.01/' + p.name for p in patches) or '(none)'} "
                             f"with the same bytes {where}",
                             f"applies {', '.join(str(f) for f in files) or 'nothing'}")
                report.check(all("@4.6.01" in w and "^cuda@13:" in w for _, w in applied),
                             f"spack/overrides/{name}: patches only for @4.6.01 with ^cuda@13: {where}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
