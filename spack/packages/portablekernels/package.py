# Spack recipe for PortableKernels, kept in the project's own package repository:
#
#   spack repo add ./spack
#   spack install portablekernels                    # OpenMP only
#   spack install portablekernels +cuda cuda_arch=90 # OpenMP + CUDA in one build
#   spack test run portablekernels                   # runs the installed pk-info and pk-bench
#   spack install portablekernels +mpi               # distributed solvers, on Spack's MPI
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

import itertools
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
    # `cuda` and `cuda_arch` come from CudaPackage.
    conflicts("+cuda", when="cuda_arch=none", msg="+cuda needs a GPU architecture, e.g. cuda_arch=90")
    # Kokkos compiles for one GPU architecture per build; without this the forwarding below
    # makes two-arch specs unsatisfiable with no message.
    for _a, _b in itertools.combinations(CudaPackage.cuda_arch_values, 2):
        conflicts(
            f"cuda_arch={_a},{_b}",
            when="+cuda",
            msg="Kokkos builds for one GPU architecture: give a single cuda_arch "
            "(one install per architecture)",
        )
    # nvcc_wrapper drives g++ for the host side; the project is tested with GCC only.
    requires("%gcc", when="+cuda", msg="+cuda builds with nvcc_wrapper around GCC: add %gcc")

    depends_on("cxx", type="build")
    depends_on("cmake@3.22:", type="build")

    # Kokkos. The project is C++17 and checks Kokkos_ENABLE_CUDA_LAMBDA; Kokkos 5 needs
    # C++20 and dropped that option, hence the upper bound.
    depends_on("kokkos@3.4:")
    depends_on("kokkos@:4")
    depends_on("kokkos+openmp", when="+openmp")
    depends_on("kokkos+cuda+cuda_lambda", when="+cuda")
    # The configure step stops if Kokkos has CUDA but PK_ENABLE_CUDA is OFF.
    depends_on("kokkos~cuda", when="~cuda")
    # nvcc_wrapper is the C++ compiler of a GCC-based CUDA build (clang compiles CUDA itself).
    depends_on("kokkos+wrapper", when="+cuda %gcc")
    # Upstream Kokkos supports CUDA 13 from 4.7.01 (Spack's own kokkos recipe says so from
    # Spack 1.x on; 0.23 predates it). The project's bootstrap patches 4.6.01; Spack does not.
    conflicts(
        "^cuda@13:",
        when="+cuda ^kokkos@:4.7.00",
        msg="Kokkos before 4.7.01 does not build with CUDA 13: use ^kokkos@4.7.01: "
        "or a CUDA 12 toolkit (^cuda@12)",
    )

    # Kokkos Kernels, with vendor BLAS on the host and cuBLAS on the device, as the project's
    # own bootstrap (deps/bootstrap.sh) builds it. The ETI for our spaces is off by default
    # in Spack's recipe; without it every BLAS call is instantiated in our own binaries.
    depends_on("kokkos-kernels@3.4:")
    depends_on("kokkos-kernels+blas")
    depends_on("kokkos-kernels+openmp+execspace_openmp", when="+openmp")
    depends_on("kokkos-kernels+cuda+cublas+execspace_cuda+memspace_cudaspace", when="+cuda")
    depends_on("kokkos-kernels~cuda", when="~cuda")
    depends_on("blas")

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

    def _kokkos_cxx(self):
        """Kokkos' C++ compiler: nvcc_wrapper for +cuda with GCC, else Spack's compiler."""
        try:  # Spack 1.x: a property of the Kokkos package
            return self["kokkos"].kokkos_cxx
        except (AttributeError, TypeError, KeyError):
            # Spack 0.2x: set on the spec by Kokkos' setup_dependent_package
            return self.spec["kokkos"].kokkos_cxx

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
            self.define_from_variant("PK_ENABLE_CUDA", "cuda"),
            self.define_from_variant("PK_ENABLE_MPI", "mpi"),
            self.define_from_variant("PK_ENABLE_HDF5", "hdf5"),
            self.define("PK_ENABLE_TESTS", self.run_tests),
            self.define("PK_ENABLE_BENCHMARKS", True),
            self.define("PK_HOST_ARCH", self._host_march()),
        ]
        if spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CXX_COMPILER", self._kokkos_cxx()))
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
        """pk-bench runs every kernel at the tiny size on OpenMP"""
        pk_bench = which(join_path(self.prefix.bin, "pk-bench"), required=True)
        out = pk_bench(
            "--space", "openmp", "--size", "tiny", "--out", "bench-results",
            output=str.split, error=str.split,
        )
        for kernel in ("copy", "lbm", "rfilter", "besselk", "gbees"):
            assert kernel in out, f"pk-bench ran no {kernel} case:\n{out}"
