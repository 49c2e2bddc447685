# Spack 0.23's kokkos recipe plus the 4.6.01 release (sha256 as in Spack 1.x's recipe and
# deps/bootstrap.sh). For the offline checks only: Spack 1.x has this version built in.
from spack.package import *
from spack.pkg.builtin.kokkos import Kokkos as BuiltinKokkos


class Kokkos(BuiltinKokkos):
    version(
        "4.6.01",
        sha256="b9d70e4653b87a06dbb48d63291bf248058c7c7db4bd91979676ad5609bb1a3a",
        url="https://github.com/kokkos/kokkos/releases/download/4.6.01/kokkos-4.6.01.tar.gz",
    )
