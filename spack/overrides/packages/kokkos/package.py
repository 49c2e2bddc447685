# Spack's kokkos recipe, plus the 4.6.01 release where Spack lacks it (0.23) and the project's
# CUDA 13 patches for it (deps/patches/kokkos-4.6.01, applied from there: the very files that
# deps/bootstrap.sh applies).
from spack.package import *

try:  # Spack 1.x: the builtin repository is the Python package spack_repo.builtin
    from spack_repo.builtin.packages.kokkos.package import Kokkos as BuiltinKokkos
except ImportError:  # Spack 0.2x
    from spack.pkg.builtin.kokkos import Kokkos as BuiltinKokkos

#: deps/patches/kokkos-4.6.01 of the repository, relative to this directory
PATCHES = "../../../../deps/patches/kokkos-4.6.01"


class Kokkos(BuiltinKokkos):
    version(
        "4.6.01",
        sha256="b9d70e4653b87a06dbb48d63291bf248058c7c7db4bd91979676ad5609bb1a3a",
        url="https://github.com/kokkos/kokkos/releases/download/4.6.01/kokkos-4.6.01.tar.gz",
    )
    # 0001: nvcc_wrapper's default sm_70, which nvcc 13 rejects (Kokkos installs its own
    # bin/nvcc_wrapper too); 0002: the runtime calls CUDA 13 changed. Upstream: 4.7.01.
    with when("@4.6.01 +cuda ^cuda@13:"):
        patch(f"{PATCHES}/0001-nvcc-wrapper-default-sm90.patch")
        patch(f"{PATCHES}/0002-cuda13-runtime-api.patch")
