# Spack recipe for PortableKernels, kept in the project's own package repository:
#
#   spack repo add ./spack
#   spack install portablekernels                    # OpenMP only
#   spack install portablekernels +cuda cuda_arch=90 # OpenMP + CUDA in one build
#   spack test run portablekernels                   # runs the installed pk-info and pk-bench
#   spack install portablekernels +mpi               # distributed solvers, on Spack's MPI
#   spack install portablekernels +mpi +scalapack    # and the Matern fit on several ranks (ScaLAPACK)
#
# One file for Spack 0.22/0.23 and Spack 1.x. The repository uses the classic layout
# (spack/packages/<name>/package.py, Package API v1.0, see ../../repo.yaml). Spack 0.2x takes
# CMakePackage and CudaPackage from `spack.package`; Spack 1.x keeps them out of
# `spack.package` (they live in the builtin repository, spack_repo.builtin.build_systems) and
# reads a v1.0 repository through its v1 compatibility layer; importing them explicitly below
# also lets this file move unchanged into a Package API v2 repository.

from spack.package import *

try:  # Spack 1.x
    from spack_repo.builtin.build_systems.cmake import CMakePackage
    from spack_repo.builtin.build_systems.cuda import CudaPackage
except ImportError:  # Spack 0.2x: both came with `spack.package`
    pass

import re


class Portablekernels(CMakePackage, CudaPackage):
    """PortableKernels: GPU science kernels written once with Kokkos and Kokkos Kernels,
    built for the OpenMP backend and optionally the CUDA backend in the same binaries,
    with the pk-bench driver that compares CPU (OpenMP) against GPU (CUDA) runs."""

    homepage = "https://github.com/portablekernels/portablekernels"
    git = "https://github.com/portablekernels/portablekernels.git"
    url = "https://github.com/portablekernels/portablekernels/archive/refs/tags/v0.1.0.tar.gz"

    maintainers("portablekernels")
    license("BSD-3-Clause")

    version("main", branch="main")
    # 0.1.0 is commit 8d190a7 (the tag v0.1.0 goes there). sha256 of
    # `git archive --format=tar.gz --prefix=portablekernels-0.1.0/ 8d190a7`, the archive GitHub
    # serves for the tag (tests/spack/install_with_offline_spack.sh puts it in a local mirror).
    version("0.1.0", sha256="40efff9fd10baafc3c294276f158b93097b11fcd0b036026d9d1e545833b1770")

    # The CPU side of every CPU-vs-GPU comparison is the OpenMP backend, so it is always on;
    # the variant exists so that specs can say so and `~openmp` is rejected with a reason.
    variant("openmp", default=True, description="Build the Kokkos OpenMP backend (required)")
    conflicts(
        "~openmp",
        msg="PortableKernels always needs the Kokkos OpenMP backend: it is the CPU side "
        "of every CPU-vs-GPU comparison (use +cuda to add the GPU side)",
    )
    variant("mpi", default=False, description="Distributed solvers (MPI) and pk-lbm's distributed mode")
    depends_on("mpi", when="+mpi")
    variant("hdf5", default=False, when="+mpi", description="Parallel HDF5 output of LBM fields and 3D-Var analyses")
    depends_on("hdf5+mpi", when="+hdf5")
    variant(
        "scalapack",
        default=False,
        when="+mpi",
        description="The Matern likelihood and fit on several ranks, the covariance factored by ScaLAPACK",
    )
    depends_on("scalapack", when="+scalapack")
    # `cuda` comes from CudaPackage. Kokkos builds for one GPU architecture, so `cuda_arch`
    # is single-valued, declared as Spack's kokkos recipe declares it.
    variant(
        "cuda_arch",
        description="CUDA architecture",
        values=("none",) + CudaPackage.cuda_arch_values,
        default="none",
        multi=False,
        sticky=True,
        when="+cuda",
    )
    conflicts("+cuda", when="cuda_arch=none", msg="+cuda needs a GPU architecture, e.g. cuda_arch=90")
    # nvcc_wrapper drives g++ for the host side; the project is tested with GCC only.
    requires("%gcc", when="+cuda", msg="+cuda builds with nvcc_wrapper around GCC: add %gcc")

    depends_on("cxx", type="build")
    depends_on("cmake@3.22:", type="build")

    # Kokkos. Built and tested: 4.6.01 (OpenMP; +cuda on CUDA 13 through spack/overrides),
    # concretized with Spack 0.23. Allowed, neither concretized nor built (no Spack 1.x here):
    # 5.x, C++20 (Kokkos 5 has no cxxstd below 20; the project compiles with Kokkos' standard,
    # see cmake_args, and ./pk test-cxx20 rehearses it). Kokkos built as C++14 is refused: the
    # project is C++17.
    depends_on("kokkos@3.4:")
    conflicts("^kokkos cxxstd=14", msg="PortableKernels needs C++17 or later: ^kokkos cxxstd=17")
    depends_on("kokkos+openmp", when="+openmp")
    depends_on("kokkos+cuda", when="+cuda")
    # Kokkos 5 always has device lambdas and dropped the option.
    depends_on("kokkos+cuda_lambda", when="+cuda ^kokkos@:4")
    # The configure step stops if Kokkos has CUDA but PK_ENABLE_CUDA is OFF.
    depends_on("kokkos~cuda", when="~cuda")
    # nvcc_wrapper is the C++ compiler of a GCC-based CUDA build (clang compiles CUDA itself);
    # Spack's kokkos recipe refuses to build +cuda with GCC without it.
    depends_on("kokkos+wrapper", when="+cuda %gcc")
    # What cannot build: upstream Kokkos supports CUDA 13 from 4.7.01. 4.6.01 builds with the
    # project's patches (spack/overrides applies them; Spack 1.x's own kokkos recipe refuses
    # 4.6.01 with CUDA 13, Spack 0.23's has no 4.6.01, and an external 4.6.01 was built).
    _cuda13_msg = (
        "Kokkos before 4.7.01 does not build with CUDA 13: use ^kokkos@4.7.01:, "
        "^kokkos@4.6.01 with spack/overrides (the project's patches), or ^cuda@12"
    )
    conflicts("^cuda@13:", when="+cuda ^kokkos@:4.6.00", msg=_cuda13_msg)
    conflicts("^cuda@13:", when="+cuda ^kokkos@4.6.02:4.7.00", msg=_cuda13_msg)

    # Kokkos Kernels, with vendor BLAS on the host and cuBLAS on the device, as the project's
    # own bootstrap (deps/bootstrap.sh) builds it. Its explicit instantiations are the site's
    # choice (Spack's defaults); without them the calls are instantiated in our binaries.
    depends_on("kokkos-kernels@3.4:")
    depends_on("kokkos-kernels+blas")
    depends_on("kokkos-kernels+openmp", when="+openmp")
    depends_on("kokkos-kernels+cuda+cublas", when="+cuda")
    depends_on("kokkos-kernels~cuda", when="~cuda")
    # The host BLAS runs inside Kokkos' OpenMP threads: a single-threaded OpenBLAS would be
    # the CPU side of every comparison, and a pthreads one fights Kokkos' threads.
    _openblas_msg = "PortableKernels needs an OpenMP-threaded OpenBLAS: ^openblas threads=openmp"
    conflicts("^openblas threads=none", msg=_openblas_msg)
    conflicts("^openblas threads=pthreads", msg=_openblas_msg)

    # One GPU architecture, passed through to both, as ArborX and Cabana do.
    for _arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos+cuda cuda_arch={_arch}", when=f"+cuda cuda_arch={_arch}")
        depends_on(f"kokkos-kernels+cuda cuda_arch={_arch}", when=f"+cuda cuda_arch={_arch}")

    depends_on("nlohmann-json@3:")
    depends_on("cli11")
    depends_on("zlib-api")  # checkpoints' CRC-32
    # BesselK/Matern: NLopt (BOBYQA) for the likelihood fit; GSL and Boost.Math (headers) as
    # the independent references K_nu is checked against. NLopt's Python module is unused.
    depends_on("nlopt~python")
    depends_on("gsl")
    depends_on("boost@1.71:")
    depends_on("googletest", type="test")

    def _nvcc_wrapper(self):
        """Kokkos' nvcc_wrapper: the kokkos-nvcc-wrapper node's where Spack built Kokkos
        +wrapper, else the one a CUDA Kokkos installs in its own bin/ (an external Kokkos
        has no dependency nodes). Spec nodes and prefixes only: the Kokkos package's own
        helpers differ between Spack versions and fail for externals."""
        kokkos = self.spec["kokkos"]
        for dep in kokkos.dependencies():
            if dep.name == "kokkos-nvcc-wrapper":
                return join_path(dep.prefix.bin, "nvcc_wrapper")
        return join_path(kokkos.prefix.bin, "nvcc_wrapper")

    def _host_march(self):
        """The -march of the spec's target for GCC, or "" (the compiler's default).

        nvcc_wrapper calls the host g++ itself, so Spack's compiler wrapper and its target
        flags never see the host code of a +cuda build: PK_HOST_ARCH carries them."""
        spec = self.spec
        try:  # Spack 1.x: the compiler is a dependency
            compiler = spec["cxx"]
        except Exception:  # Spack 0.2x
            compiler = spec.compiler
        if compiler.name != "gcc":
            return ""
        # Spack 0.2x wraps archspec's Microarchitecture in spack.target.Target; 1.x does not.
        uarch = getattr(spec.target, "microarchitecture", spec.target)
        try:
            flags = uarch.optimization_flags("gcc", str(compiler.version))
        except ValueError:  # a target this GCC does not know
            return ""
        match = re.search(r"-march=(\S+)", flags)
        return match.group(1) if match else ""

    def cmake_args(self):
        spec = self.spec
        args = [
            # Use Spack's Kokkos and Kokkos Kernels; never the project's bootstrap.
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
            self.define("KokkosKernels_ROOT", spec["kokkos-kernels"].prefix),
            self.define("PK_BOOTSTRAP_KOKKOS", False),
            # The project compiles with Kokkos' standard (C++20 for Kokkos 5).
            self.define("CMAKE_CXX_STANDARD", spec["kokkos"].variants["cxxstd"].value),
            self.define_from_variant("PK_ENABLE_CUDA", "cuda"),
            self.define_from_variant("PK_ENABLE_MPI", "mpi"),
            self.define_from_variant("PK_ENABLE_HDF5", "hdf5"),
            self.define_from_variant("PK_ENABLE_SCALAPACK", "scalapack"),
            self.define("PK_ENABLE_TESTS", self.run_tests),
            self.define("PK_ENABLE_BENCHMARKS", True),
            self.define("PK_ENABLE_EXAMPLES", False),
            self.define("PK_HOST_ARCH", self._host_march()),
        ]
        if spec.satisfies("+cuda %gcc"):
            args.append(self.define("CMAKE_CXX_COMPILER", self._nvcc_wrapper()))
        return args

    # Stand-alone tests (`spack test run portablekernels`): the installed programs, run from
    # the test stage, must find their data under the prefix.
    def test_pk_info(self):
        """pk-info lists the enabled execution spaces"""
        pk_info = which(join_path(self.prefix.bin, "pk-info"), required=True)
        out = pk_info(output=str.split, error=str.split)
        assert "openmp" in out, f"pk-info does not list openmp:\n{out}"
        if self.spec.satisfies("+cuda"):
            assert "cuda" in out, f"pk-info does not list cuda:\n{out}"

    def test_pk_bench_tiny(self):
        """pk-bench runs every kernel at the tiny size on every space of the build"""
        pk_bench = which(join_path(self.prefix.bin, "pk-bench"), required=True)
        space = "all" if self.spec.satisfies("+cuda") else "openmp"
        out = pk_bench(
            "--space", space, "--size", "tiny", "--out", "bench-results",
            output=str.split, error=str.split,
        )
        for kernel in ("copy", "lbm", "rfilter", "besselk", "gbees"):
            assert kernel in out, f"pk-bench ran no {kernel} case:\n{out}"
        if self.spec.satisfies("+cuda"):
            assert "cuda" in out, f"pk-bench ran nothing on cuda:\n{out}"
