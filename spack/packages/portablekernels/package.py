# Spack recipe for PortableKernels, kept in the project's own package repository:
#
#   spack repo add ./spack
#   spack install portablekernels                    # OpenMP only
#   spack install portablekernels +cuda cuda_arch=90 # OpenMP + CUDA in one build
#   spack install portablekernels +mpi               # distributed solvers, on Spack's MPI
#
# The repository uses the classic layout (Package API v1.0, where `spack.package`
# provides CMakePackage and CudaPackage): Spack 0.22 and later read it, Spack 1.x through
# its Package API v1 compatibility (0.22 is the first with the `cxx` language virtual).

from spack.package import *


class Portablekernels(CMakePackage, CudaPackage):
    """PortableKernels: GPU science kernels written once with Kokkos and Kokkos Kernels,
    built for the OpenMP backend and optionally the CUDA backend in the same binaries,
    with the pk-bench driver that compares CPU (OpenMP) against GPU (CUDA) runs."""

    homepage = "https://github.com/portablekernels/portablekernels"
    git = "https://github.com/portablekernels/portablekernels.git"

    version("main", branch="main")

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
    # `cuda` and `cuda_arch` come from CudaPackage.
    conflicts("+cuda", when="cuda_arch=none", msg="+cuda needs a GPU architecture, e.g. cuda_arch=90")

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

    # Kokkos Kernels, with vendor BLAS on the host and cuBLAS on the device, as the project's
    # own bootstrap (deps/bootstrap.sh) builds it.
    depends_on("kokkos-kernels@3.4:")
    depends_on("kokkos-kernels+blas")
    depends_on("kokkos-kernels+openmp", when="+openmp")
    depends_on("kokkos-kernels+cuda+cublas", when="+cuda")
    depends_on("kokkos-kernels~cuda", when="~cuda")
    depends_on("blas")

    # Kokkos supports one GPU architecture per build: pass ours through to both.
    for arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos cuda_arch={arch}", when=f"+cuda cuda_arch={arch}")
        depends_on(f"kokkos-kernels cuda_arch={arch}", when=f"+cuda cuda_arch={arch}")

    depends_on("nlohmann-json@3:")
    depends_on("cli11")
    # BesselK/Matern: NLopt (BOBYQA) for the likelihood fit; GSL and Boost.Math as the
    # independent references K_nu is checked against.
    depends_on("nlopt")
    depends_on("gsl")
    depends_on("boost")
    depends_on("googletest", type="test")

    def cmake_args(self):
        spec = self.spec
        args = [
            # Use Spack's Kokkos and Kokkos Kernels; never the project's bootstrap.
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
            self.define("KokkosKernels_ROOT", spec["kokkos-kernels"].prefix),
            self.define("PK_BOOTSTRAP_KOKKOS", False),
            self.define_from_variant("PK_ENABLE_CUDA", "cuda"),
            self.define_from_variant("PK_ENABLE_MPI", "mpi"),
            self.define("PK_ENABLE_TESTS", self.run_tests),
            self.define("PK_ENABLE_BENCHMARKS", True),
            # Spack's compiler wrappers already pass the target's -march.
            self.define("PK_HOST_ARCH", ""),
        ]
        if spec.satisfies("+cuda"):
            # nvcc_wrapper (or the compiler Kokkos was built with), as Kokkos consumers do.
            args.append(self.define("CMAKE_CXX_COMPILER", spec["kokkos"].kokkos_cxx))
        return args
