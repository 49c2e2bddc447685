# Spack's kokkos recipe, plus the 4.6.01 release where Spack lacks it (0.23) and the project's
# CUDA 13 patches for it: copies, beside this file, of deps/patches/kokkos-4.6.01 (the files
# deps/bootstrap.sh applies; tests/spack/check_package.py checks that they are the same bytes),
# so that spack/overrides can be copied on its own.
from spack.package import *

try:  # Spack 1.x: the builtin repository is the Python package spack_repo.builtin
    from spack_repo.builtin.packages.kokkos.package import Kokkos as BuiltinKokkos
except ImportError:  # Spack 0.2x
    from spack.pkg.builtin.kokkos import Kokkos as BuiltinKokkos


class Kokkos(BuiltinKokkos):
    version(
        "4.6.01",
        sha256="b9d70e4653b87a06dbb48d63291bf248058c7c7db4bd91979676ad5609bb1a3a",
        url="https://github.com/kokkos/kokkos/releases/download/4.6.01/kokkos-4.6.01.tar.gz",
    )
    # 0001: nvcc_wrapper's default sm_70, which nvcc 13 rejects (Kokkos installs its own
    # bin/nvcc_wrapper too); 0002: the runtime calls CUDA 13 changed. Upstream: 4.7.01.
    with when("@4.6.01 +cuda ^cuda@13:"):
        patch("0001-nvcc-wrapper-default-sm90.patch")
        patch("0002-cuda13-runtime-api.patch")
    # The wrapper of the same release (the builtin recipe pins it for develop and master only;
    # an older one lacks the patch above).
    depends_on("kokkos-nvcc-wrapper@4.6.01", when="@4.6.01 +wrapper")
