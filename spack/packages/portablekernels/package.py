# Spack recipe for PortableKernels, kept in the project's own package repository:
#
#   spack repo add ./spack
#   spack install portablekernels                    # OpenMP only
#   spack install portablekernels +cuda cuda_arch=90 # OpenMP + CUDA in one build
#   spack test run portablekernels                   # runs the installed pk-info and pk-bench
#   spack install portablekernels +mpi               # distributed solvers, on Spack's MPI
#   spack install portablekernels +mpi +scalapack    # and the Matern fit on several ranks (ScaLAPACK)
#   spack install portablekernels +rocm amdgpu_target=gfx90a  # OpenMP + HIP in one build
#
# A site's packages.yaml (docs/install.md, "Install with Spack") pins what the recipe cannot:
# OpenBLAS threads=openmp, Kokkos Kernels without explicit instantiations for +cuda, and the
# system's CUDA as an external that is not buildable.
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
    from spack_repo.builtin.build_systems.rocm import ROCmPackage
except ImportError:  # Spack 0.2x: all three came with `spack.package`
    pass

try:  # The languages `depends_on` knows: ("fortran", "cxx") in June 2024's 0.23.0.dev0, which
    # takes `depends_on("c")` for a package named c; ("c", "cxx", "fortran") in 0.23.0.
    from spack.directives import SUPPORTED_LANGUAGES as _LANGUAGES
except ImportError:  # Spack 1.x: c, cxx and fortran are virtual packages
    _LANGUAGES = ("c", "cxx", "fortran")

import re


class Portablekernels(CMakePackage, CudaPackage, ROCmPackage):
    """PortableKernels: GPU science kernels written once with Kokkos and Kokkos Kernels,
    built for the OpenMP backend and optionally the CUDA or the HIP backend in the same
    binaries, with the pk-bench driver that compares CPU (OpenMP) against GPU runs."""

    homepage = "https://github.com/portablekernels/portablekernels"
    git = "https://github.com/portablekernels/portablekernels.git"

    maintainers("portablekernels")
    license("BSD-3-Clause")

    # The repository has no release tags: each release is a commit of main, fetched as the
    # archive GitHub serves for that commit (archive/<commit>.tar.gz: `git archive` with the
    # prefix portablekernels-<commit>/, compressed by `gzip -n`). A site without network puts
    # the same bytes in its mirror as portablekernels/portablekernels-<version>.tar.gz:
    #   git archive --format=tar --prefix=portablekernels-COMMIT/ COMMIT | gzip -cn
    # ./pk test-spack rebuilds each archive from its commit and checks the sha256 below.
    _archive = "https://github.com/portablekernels/portablekernels/archive/{0}.tar.gz"
    _releases = {
        # 0.2.0: main at 0ce36da (2026-12-04): MPI, parallel HDF5, ScaLAPACK, HIP, cuSOLVERMg.
        "0.2.0": ("0ce36da43a300020ff44d2493d11cb0278cc1872",
                  "e0cb3f2b01160d602986d7d73fe704e0875fdf9cf8015626f5588a0537e885a9"),
        # 0.1.0: 8d190a7 (2026-11-24): OpenMP and CUDA only; no MPI, HDF5, ScaLAPACK or HIP.
        "0.1.0": ("8d190a78e078c5ca972a4000113645b1e50465ad",
                  "591fa01532d4bdcbbbb75c8d1a856e008bf29d77b545519b161f131f3e305259"),
    }
    version("main", branch="main")
    version("0.2.0", sha256=_releases["0.2.0"][1], url=_archive.format(_releases["0.2.0"][0]))
    version("0.1.0", sha256=_releases["0.1.0"][1], url=_archive.format(_releases["0.1.0"][0]),
            deprecated=True)

    # The CPU side of every CPU-vs-GPU comparison is the OpenMP backend, so it is always on;
    # the variant exists so that specs can say so and `~openmp` is rejected with a reason.
    variant("openmp", default=True, description="Build the Kokkos OpenMP backend (required)")
    conflicts(
        "~openmp",
        msg="PortableKernels always needs the Kokkos OpenMP backend: it is the CPU side "
        "of every CPU-vs-GPU comparison (use +cuda to add the GPU side)",
    )
    # MPI, HDF5, ScaLAPACK and HIP came after 0.1.0: their variants exist from 0.2.0 (and on
    # main), so `portablekernels@0.1.0 +mpi` is refused rather than built without MPI.
    variant(
        "mpi", default=False, when="@0.2.0:",
        description="Distributed solvers (MPI) and pk-lbm's distributed mode",
    )
    depends_on("mpi", when="+mpi")
    variant(
        "hdf5", default=False, when="@0.2.0: +mpi",
        description="Parallel HDF5 output of LBM fields and 3D-Var analyses",
    )
    depends_on("hdf5+mpi", when="+hdf5")
    # The project's FindHDF5 compiles a C test program (enable_language(C)).
    if "c" in _LANGUAGES:
        depends_on("c", type="build", when="+hdf5")
    variant(
        "scalapack",
        default=False,
        when="@0.2.0: +mpi",
        description="The Matern likelihood and fit on several ranks, the covariance factored by ScaLAPACK",
    )
    depends_on("scalapack", when="+scalapack")
    # A CUDA build prefers an MPI built with CUDA (one that takes GPU memory): where Spack
    # builds the MPI, it builds it +cuda. A site's MPI declared `buildable: false` is taken as
    # it is, the variant turning off. A *buildable* external MPI is not reused: Spack 0.23
    # ranks a root's variant defaults above reuse, so it builds a CUDA-aware MPI beside it
    # (say ~cuda_aware_mpi, or make the external not buildable). `+cuda_aware_mpi` insists
    # (refused with an external MPI built without CUDA). At run time the programs ask the MPI
    # (MPIX_Query_cuda_support) and stage through the host where it is not CUDA-aware.
    variant(
        "cuda_aware_mpi", default=True, when="@0.2.0: +mpi +cuda",
        description="Prefer an MPI built with CUDA support (off: whatever MPI the site has)",
    )
    depends_on("openmpi+cuda", when="+cuda_aware_mpi ^[virtuals=mpi] openmpi")
    depends_on("mpich+cuda", when="+cuda_aware_mpi ^[virtuals=mpi] mpich")
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
    # `rocm` comes from ROCmPackage: the HIP backend (AMD GPUs) beside OpenMP, built with
    # hipcc (PK_ENABLE_HIP). Single-valued `amdgpu_target`, as for cuda_arch. Kokkos builds one
    # GPU backend.
    variant(
        "amdgpu_target",
        description="AMD GPU architecture",
        values=("none",) + ROCmPackage.amdgpu_targets,
        default="none",
        multi=False,
        sticky=True,
        when="+rocm",
    )
    conflicts("+rocm", when="@:0.1", msg="HIP support came after 0.1.0: use @0.2.0:")
    conflicts("+rocm", when="amdgpu_target=none", msg="+rocm needs a GPU architecture, e.g. amdgpu_target=gfx90a")
    conflicts("+cuda", when="+rocm", msg="Kokkos builds one GPU backend: +cuda or +rocm, not both")
    # The HIP kernels' launch parameters hold the facts of CDNA 2 and 3 (pk::SpaceTraits<HIP>
    # in include/pk/core/spaces.hpp); other AMD GPUs stop the build there.
    _amd_supported = ("gfx90a", "gfx940", "gfx942")
    for _arch in ROCmPackage.amdgpu_targets:
        if _arch not in _amd_supported:
            conflicts(
                f"amdgpu_target={_arch}",
                when="+rocm",
                msg=f"PortableKernels' HIP backend knows CDNA 2 and 3 only: amdgpu_target="
                + " or ".join(_amd_supported),
            )
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
    depends_on("kokkos+rocm", when="+rocm")
    # Kokkos 5 always has device lambdas and dropped the option.
    depends_on("kokkos+cuda_lambda", when="+cuda ^kokkos@:4")
    # The configure step stops if Kokkos has CUDA but PK_ENABLE_CUDA is OFF (HIP the same).
    depends_on("kokkos~cuda", when="~cuda")
    depends_on("kokkos~rocm", when="~rocm")
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
    # The GPU backends are built and tested on Kokkos 4.6.01 and later. Spack 0.23's releases
    # end at 4.3.01, which CUDA 13 cannot build: a site with CUDA 13 as a buildable external
    # would get a second CUDA (12.x) built from source for it. From 4.6.01 on there is no such
    # reason to build a CUDA: on Spack 0.23 that takes spack/overrides (4.6.01).
    _gpu_kokkos_msg = (
        "the GPU backends need Kokkos 4.6.01 or later, which Spack 0.23 lacks: add the "
        "repository spack/overrides (Kokkos 4.6.01), or use Spack 1.x"
    )
    depends_on("kokkos@4.6.01:", when="+cuda")
    depends_on("kokkos@4.6.01:", when="+rocm")
    # Branches are not versions: Kokkos' `develop` and `master` move under a site's install
    # (Spack picks `develop` where no release fits, e.g. CUDA 13 without spack/overrides).
    _branch_msg = "{0}@{1} is an unpinned branch: pin a release (^{0}@4.6.01); " + _gpu_kokkos_msg
    conflicts("^kokkos@develop", msg=_branch_msg.format("kokkos", "develop"))
    conflicts("^kokkos@master", msg=_branch_msg.format("kokkos", "master"))
    conflicts("^kokkos-kernels@develop", msg=_branch_msg.format("kokkos-kernels", "develop"))
    conflicts("^kokkos-kernels@master", msg=_branch_msg.format("kokkos-kernels", "master"))

    # Kokkos Kernels, with vendor BLAS on the host and cuBLAS on the device, as the project's
    # own bootstrap (deps/bootstrap.sh) builds it. Its explicit instantiations are the site's
    # choice (Spack's defaults); without them the calls are instantiated in our binaries.
    depends_on("kokkos-kernels@3.4:")
    depends_on("kokkos-kernels+blas")
    depends_on("kokkos-kernels+openmp", when="+openmp")
    depends_on("kokkos-kernels+cuda+cublas", when="+cuda")
    depends_on("kokkos-kernels~cuda", when="~cuda")
    # The host BLAS runs inside Kokkos' OpenMP threads: a single-threaded OpenBLAS would be
    # the CPU side of every comparison, and a pthreads one fights Kokkos' threads. The BLAS is
    # Kokkos Kernels' (the project's CMake never looks for one); it is a direct dependency here
    # because Spack 0.23 checks `^openblas` in conflicts against direct dependencies only
    # (through kokkos-kernels alone it concretized `openblas threads=none`). With it, Spack
    # chooses threads=openmp itself, and refuses an OpenBLAS given with other threads.
    depends_on("blas", type="link")
    _openblas_msg = "PortableKernels needs an OpenMP-threaded OpenBLAS: ^openblas threads=openmp"
    conflicts("^openblas threads=none", msg=_openblas_msg)
    conflicts("^openblas threads=pthreads", msg=_openblas_msg)

    # One GPU architecture, passed through to both, as ArborX and Cabana do.
    for _arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos+cuda cuda_arch={_arch}", when=f"+cuda cuda_arch={_arch}")
        depends_on(f"kokkos-kernels+cuda cuda_arch={_arch}", when=f"+cuda cuda_arch={_arch}")
    # Kokkos Kernels follows Kokkos' HIP architecture (Spack 0.23's has no amdgpu_target).
    for _arch in _amd_supported:
        depends_on(f"kokkos+rocm amdgpu_target={_arch}", when=f"+rocm amdgpu_target={_arch}")

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

    #: The line of cmake/PKVersion.cmake that names the build where no .git is (a release
    #: archive); tests/spack/spec_with_offline_spack.sh checks each release has one.
    _no_git_line = r'^set\(PK_COMMIT "[^"]*"\)'

    def patch(self):
        """A release archive has no .git: the records would name the CMake project's version
        (0.1.0 at 0.2.0's commit) or "unknown"; they name the release and its commit."""
        release = self._releases.get(str(self.spec.version))
        if release:
            filter_file(
                self._no_git_line,
                f'set(PK_COMMIT "{self.spec.version} ({release[0][:12]})")',
                join_path("cmake", "PKVersion.cmake"),
            )

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
            self.define_from_variant("PK_ENABLE_HIP", "rocm"),
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
        if spec.satisfies("+rocm"):
            # hipcc, as Spack's kokkos compiles +rocm (the project's CMake would look on PATH).
            args.append(self.define("CMAKE_CXX_COMPILER", join_path(spec["hip"].prefix.bin, "hipcc")))
        if spec.satisfies("+hdf5"):
            args.append(self.define("HDF5_ROOT", spec["hdf5"].prefix))
        if spec.satisfies("+scalapack"):
            # The spec's ScaLAPACK (with its BLACS): netlib-scalapack, MKL, Cray LibSci... The
            # project's lookup by name (scalapack-openmpi, scalapack) finds only the first.
            args.append(self.define("PK_SCALAPACK_LIBRARY", spec["scalapack"].libs.joined(";")))
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
