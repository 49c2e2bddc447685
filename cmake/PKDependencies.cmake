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
# Kokkos 5 always has device lambdas and dropped the option.
if(PK_ENABLE_CUDA AND Kokkos_VERSION VERSION_LESS 5)
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
if(PK_ENABLE_HDF5)
  # Parallel HDF5 (Debian: libhdf5-openmpi-dev): every rank writes its part of one file.
  if(NOT PK_ENABLE_MPI)
    message(FATAL_ERROR "PortableKernels: PK_ENABLE_HDF5 needs PK_ENABLE_MPI (the files are written through MPI-IO)")
  endif()
  enable_language(C)  # FindHDF5 compiles a C test against the library
  set(HDF5_PREFER_PARALLEL TRUE)
  find_package(HDF5 REQUIRED COMPONENTS C)
  if(NOT HDF5_IS_PARALLEL)
    message(FATAL_ERROR "PortableKernels: the HDF5 found (${HDF5_C_INCLUDE_DIRS}) is not parallel: install "
                        "libhdf5-openmpi-dev, or point HDF5_ROOT at a parallel HDF5")
  endif()
endif()
if(PK_ENABLE_SCALAPACK)
  # ScaLAPACK (with its BLACS) of the MPI in use: Debian's libscalapack-openmpi-dev, Spack's
  # netlib-scalapack. Debian's CMake package names a library path that does not exist, so
  # the library is looked up by name; PK_SCALAPACK_LIBRARY may name another (with its BLACS).
  if(NOT PK_ENABLE_MPI)
    message(FATAL_ERROR "PortableKernels: PK_ENABLE_SCALAPACK needs PK_ENABLE_MPI")
  endif()
  find_library(PK_SCALAPACK_LIBRARY NAMES scalapack-openmpi scalapack)
  if(NOT PK_SCALAPACK_LIBRARY)
    message(FATAL_ERROR "PortableKernels: PK_ENABLE_SCALAPACK: no ScaLAPACK library found: install "
                        "libscalapack-openmpi-dev, or set PK_SCALAPACK_LIBRARY")
  endif()
endif()
# cuSOLVERMg comes with the CUDA toolkit; Kokkos runs kernels on several GPUs of one process
# from 4.3 on. Without either, pk-matern has no --gpus.
set(PK_BUILD_CUSOLVERMG OFF)
if(PK_ENABLE_CUDA AND PK_ENABLE_CUSOLVERMG)
  find_package(CUDAToolkit REQUIRED)
  find_library(PK_CUSOLVERMG_LIBRARY NAMES cusolverMg HINTS ${CUDAToolkit_LIBRARY_DIR})
  if(NOT PK_CUSOLVERMG_LIBRARY)
    message(STATUS "PortableKernels: no libcusolverMg in ${CUDAToolkit_LIBRARY_DIR}: Matern on one GPU a process only")
  elseif(Kokkos_VERSION VERSION_LESS 4.3)
    message(STATUS "PortableKernels: Kokkos ${Kokkos_VERSION} runs on one GPU a process: Matern's --gpus needs 4.3")
  else()
    set(PK_BUILD_CUSOLVERMG ON)
  endif()
endif()
find_package(CLI11 REQUIRED)
find_package(ZLIB REQUIRED)  # Debian: zlib1g-dev; CRC-32 of checkpoints
if(PK_ENABLE_TESTS)
  find_package(GTest REQUIRED)
endif()

# BesselK/Matern: GSL and Boost.Math (headers) as independent references for K_nu, NLopt
# (Debian's libnlopt-dev ships NLoptConfig.cmake) for BOBYQA in the maximum-likelihood fit.
find_package(GSL REQUIRED)
find_package(Boost 1.71 REQUIRED)
find_package(NLopt REQUIRED)
