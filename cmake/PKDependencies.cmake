# Kokkos and Kokkos Kernels, treated as authoritative: the backends we need must be there.
find_package(Kokkos REQUIRED)
find_package(KokkosKernels REQUIRED)
# The project's patches in this Kokkos, for result records: deps/bootstrap.sh lists what it
# applied in <prefix>/.complete; a Kokkos installed any other way carries none of ours.
get_filename_component(_pk_kokkos_prefix "${Kokkos_DIR}/../../.." ABSOLUTE)
set(PK_KOKKOS_PATCHES "")
set(PK_KOKKOS_BOOTSTRAPPED OFF)
if(EXISTS "${_pk_kokkos_prefix}/.complete")
  set(PK_KOKKOS_BOOTSTRAPPED ON)
  file(STRINGS "${_pk_kokkos_prefix}/.complete" PK_KOKKOS_PATCHES REGEX "^patches=")
  string(REGEX REPLACE "^patches=|\\.patch" "" PK_KOKKOS_PATCHES "${PK_KOKKOS_PATCHES}")
  string(STRIP "${PK_KOKKOS_PATCHES}" PK_KOKKOS_PATCHES)
  # Commas, not spaces: nvcc_wrapper splits a definition's value at spaces.
  string(REGEX REPLACE " +" "," PK_KOKKOS_PATCHES "${PK_KOKKOS_PATCHES}")
endif()
message(STATUS "PortableKernels: Kokkos ${Kokkos_VERSION} from ${Kokkos_DIR} (devices: ${Kokkos_DEVICES}; "
               "project patches: ${PK_KOKKOS_PATCHES})")

set(_pk_needed OPENMP)
if(PK_ENABLE_CUDA)
  list(APPEND _pk_needed CUDA)
endif()
if(PK_ENABLE_HIP)
  list(APPEND _pk_needed HIP)
endif()
foreach(_backend IN LISTS _pk_needed)
  if(NOT Kokkos_ENABLE_${_backend})
    message(FATAL_ERROR "PortableKernels: the Kokkos in ${Kokkos_DIR} lacks the ${_backend} backend "
                        "(it has: ${Kokkos_DEVICES}). Rebuild it with Kokkos_ENABLE_${_backend}=ON, "
                        "or drop Kokkos_ROOT to use the project's bootstrap.")
  endif()
endforeach()
if(Kokkos_ENABLE_CUDA AND NOT PK_ENABLE_CUDA)
  message(FATAL_ERROR "PortableKernels: the Kokkos in ${Kokkos_DIR} has the CUDA backend; configure with "
                      "-DPK_ENABLE_CUDA=ON (and Kokkos' nvcc_wrapper as the compiler).")
endif()
if(Kokkos_ENABLE_HIP AND NOT PK_ENABLE_HIP)
  message(FATAL_ERROR "PortableKernels: the Kokkos in ${Kokkos_DIR} has the HIP backend; configure with "
                      "-DPK_ENABLE_HIP=ON (and hipcc as the compiler).")
endif()
if(PK_ENABLE_CUDA)
  kokkos_check(OPTIONS CUDA_LAMBDA)
endif()
if(PK_ENABLE_HIP)
  # Kokkos names the GPU architecture when compiling, not when linking, and hipcc asks the
  # machine's GPU for one on a link line that names none (a Python traceback without a GPU).
  foreach(_arch IN LISTS Kokkos_HIP_ARCHITECTURES)
    add_link_options(--offload-arch=${_arch})
  endforeach()
endif()

find_package(nlohmann_json 3 REQUIRED)
if(PK_ENABLE_MPI)
  find_package(MPI REQUIRED COMPONENTS CXX)  # Debian: libopenmpi-dev
endif()
find_package(CLI11 REQUIRED)
if(PK_ENABLE_TESTS)
  find_package(GTest REQUIRED)
endif()

# BesselK/Matern: GSL and Boost.Math (headers) as independent references for K_nu, NLopt
# (Debian's libnlopt-dev ships NLoptConfig.cmake) for BOBYQA in the maximum-likelihood fit.
find_package(GSL REQUIRED)
find_package(Boost 1.71 REQUIRED)
find_package(NLopt REQUIRED)
