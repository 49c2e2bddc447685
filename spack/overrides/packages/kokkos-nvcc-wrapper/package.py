# Spack's kokkos-nvcc-wrapper recipe (bin/nvcc_wrapper of a Kokkos release), plus the 4.6.01
# release where Spack lacks it (0.23, whose newest is 4.3.01) and the project's patch of the
# wrapper's default architecture for CUDA 13 (a copy, beside this file, of the one in
# deps/patches/kokkos-4.6.01).
from spack.package import *

try:  # Spack 1.x
    from spack_repo.builtin.packages.kokkos_nvcc_wrapper.package import (
        KokkosNvccWrapper as BuiltinKokkosNvccWrapper,
    )
except ImportError:  # Spack 0.2x
    from spack.pkg.builtin.kokkos_nvcc_wrapper import KokkosNvccWrapper as BuiltinKokkosNvccWrapper


class KokkosNvccWrapper(BuiltinKokkosNvccWrapper):
    version(
        "4.6.01",
        sha256="b9d70e4653b87a06dbb48d63291bf248058c7c7db4bd91979676ad5609bb1a3a",
        url="https://github.com/kokkos/kokkos/releases/download/4.6.01/kokkos-4.6.01.tar.gz",
    )
    # nvcc 13 rejects the wrapper's default sm_70, which CMake's compiler probe uses.
    patch("0001-nvcc-wrapper-default-sm90.patch", when="@4.6.01 ^cuda@13:")
