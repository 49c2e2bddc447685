# The recipe's configure arguments with Kokkos and Kokkos Kernels as site externals (no
# kokkos-nvcc-wrapper node: externals have no dependencies): the C++ compiler must be the
# nvcc_wrapper in the external Kokkos' own bin/. Prints "ok: ..." or raises.
#   spack -C SCOPE -C EXTERNALS_SCOPE python external_kokkos.py KOKKOS_PREFIX
import sys

import spack.spec

prefix = sys.argv[1]
spec = spack.spec.Spec("portablekernels +cuda cuda_arch=90").concretized()
kokkos = spec["kokkos"]
assert kokkos.external and kokkos.prefix == prefix, f"kokkos is not the external at {prefix}: {kokkos}"
assert not kokkos.dependencies(), f"the external kokkos has dependency nodes: {kokkos.dependencies()}"
args = spec.package.cmake_args()
want = f"-DCMAKE_CXX_COMPILER:STRING={prefix}/bin/nvcc_wrapper"
assert want in args, f"{want} not in {args}"
print(f"ok: with an external Kokkos, cmake_args() has {want}")
