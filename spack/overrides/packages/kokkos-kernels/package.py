# Spack's kokkos-kernels recipe, plus the 4.6.01 release where Spack lacks it (0.23), tied to
# Kokkos 4.6.01 as Spack ties every Kokkos Kernels release to its Kokkos. Kokkos Kernels 4.6.01
# needs no patch for CUDA 13.
from spack.package import *

try:  # Spack 1.x
    from spack_repo.builtin.packages.kokkos_kernels.package import (
        KokkosKernels as BuiltinKokkosKernels,
    )
except ImportError:  # Spack 0.2x
    from spack.pkg.builtin.kokkos_kernels import KokkosKernels as BuiltinKokkosKernels


class KokkosKernels(BuiltinKokkosKernels):
    version(
        "4.6.01",
        sha256="95b9357f37ab3b9c3913c00741acb2501831c28ea8664de67818ae79c69c5908",
        url="https://github.com/kokkos/kokkos-kernels/releases/download/4.6.01/kokkos-kernels-4.6.01.tar.gz",
    )
    depends_on("kokkos@4.6.01", when="@4.6.01")
