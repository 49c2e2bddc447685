# Spack 0.23's kokkos-kernels recipe plus the 4.6.01 release (sha256 as in deps/bootstrap.sh),
# tied to Kokkos 4.6.01 as upstream's recipe ties every release to its Kokkos.
from spack.package import *
from spack.pkg.builtin.kokkos_kernels import KokkosKernels as BuiltinKokkosKernels


class KokkosKernels(BuiltinKokkosKernels):
    version(
        "4.6.01",
        sha256="95b9357f37ab3b9c3913c00741acb2501831c28ea8664de67818ae79c69c5908",
        url="https://github.com/kokkos/kokkos-kernels/releases/download/4.6.01/kokkos-kernels-4.6.01.tar.gz",
    )
    depends_on("kokkos@4.6.01", when="@4.6.01")
