# Decides where Kokkos comes from, before project():
#  (a) Kokkos_ROOT / Kokkos_DIR (CMake or environment), as Spack and module systems set it:
#      used as is, nothing is bootstrapped;
#  (b) otherwise deps/bootstrap.sh builds Kokkos + Kokkos Kernels (4.6.01 from release
#      tarballs, or 3.4.01 from Debian's trilinos source package where only Debian can be
#      reached; PK_KOKKOS_VERSION chooses) into a cache outside the build tree.
# For CUDA, the C++ compiler is the nvcc_wrapper installed with Kokkos; for HIP, hipcc.

if(PK_ENABLE_CUDA AND PK_ENABLE_HIP)
  message(FATAL_ERROR "PortableKernels: PK_ENABLE_CUDA and PK_ENABLE_HIP are both ON; Kokkos builds one GPU "
                      "backend at a time: configure one build per GPU backend")
endif()

set(_pk_user_kokkos "")
foreach(_var Kokkos_ROOT Kokkos_DIR)
  if(DEFINED ENV{${_var}})
    set(_pk_user_kokkos "$ENV{${_var}}")
  endif()
  # A Kokkos_ROOT/Kokkos_DIR that an earlier bootstrap wrote into the cache is not the user's.
  if(${_var})
    string(FIND "${${_var}}" "${PK_BOOTSTRAPPED_KOKKOS}" _pk_pos)
    if(NOT PK_BOOTSTRAPPED_KOKKOS OR NOT _pk_pos EQUAL 0)
      set(_pk_user_kokkos "${${_var}}")
    endif()
  endif()
endforeach()

if(_pk_user_kokkos)
  message(STATUS "PortableKernels: using the Kokkos given by the user: ${_pk_user_kokkos}")
elseif(PK_BOOTSTRAP_KOKKOS)
  if(PK_ENABLE_CUDA)
    set(_pk_backend cuda)
  elseif(PK_ENABLE_HIP)
    set(_pk_backend hip)
  else()
    set(_pk_backend openmp)
  endif()
  message(STATUS "PortableKernels: no Kokkos_ROOT given; bootstrapping Kokkos (${_pk_backend}) "
                 "(first time: several minutes, then cached)")
  # Kept in the cache, so that a later reconfigure builds against the same Kokkos.
  set(PK_KOKKOS_VERSION "$ENV{PK_KOKKOS_VERSION}" CACHE STRING
      "Kokkos for the bootstrap: 4.6.01, 3.4.01, or empty for 4.6.01 where it can be had")
  # The project's C++ standard is Kokkos' (20: Kokkos without its deprecated code, as Kokkos 5).
  if(CMAKE_CXX_STANDARD)
    set(_pk_cxx_standard ${CMAKE_CXX_STANDARD})
  else()
    set(_pk_cxx_standard 17)
  endif()
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env PK_KOKKOS_VERSION=${PK_KOKKOS_VERSION} PK_CXX_STANDARD=${_pk_cxx_standard}
            "${CMAKE_CURRENT_LIST_DIR}/../deps/bootstrap.sh" ${_pk_backend}
    OUTPUT_VARIABLE _pk_bootstrap_out
    RESULT_VARIABLE _pk_bootstrap_rc
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _pk_bootstrap_rc EQUAL 0)
    message(FATAL_ERROR "PortableKernels: the Kokkos bootstrap failed (see the message above). "
                        "Fix it, or point Kokkos_ROOT and KokkosKernels_ROOT at an installed Kokkos.")
  endif()
  string(REGEX REPLACE ".*\n" "" _pk_prefix "${_pk_bootstrap_out}")
  set(PK_BOOTSTRAPPED_KOKKOS "${_pk_prefix}" CACHE INTERNAL "Kokkos prefix made by deps/bootstrap.sh")
  unset(Kokkos_DIR CACHE)
  unset(KokkosKernels_DIR CACHE)
  set(Kokkos_ROOT "${_pk_prefix}" CACHE PATH "Kokkos install prefix" FORCE)
  set(KokkosKernels_ROOT "${_pk_prefix}" CACHE PATH "Kokkos Kernels install prefix" FORCE)
  set(_pk_user_kokkos "${_pk_prefix}")
endif()

if(PK_ENABLE_CUDA AND NOT CMAKE_CXX_COMPILER AND NOT DEFINED ENV{CXX})
  # Kokkos_DIR may point into lib/cmake/Kokkos; the wrapper sits in <prefix>/bin.
  foreach(_cand "${_pk_user_kokkos}/bin/nvcc_wrapper" "${_pk_user_kokkos}/../../../bin/nvcc_wrapper")
    if(EXISTS "${_cand}")
      get_filename_component(CMAKE_CXX_COMPILER "${_cand}" ABSOLUTE)
      break()
    endif()
  endforeach()
  if(NOT CMAKE_CXX_COMPILER)
    message(FATAL_ERROR "PortableKernels: PK_ENABLE_CUDA=ON needs Kokkos' nvcc_wrapper as the C++ "
                        "compiler; none found under ${_pk_user_kokkos}/bin. Set CMAKE_CXX_COMPILER.")
  endif()
  if(NOT DEFINED ENV{NVCC_WRAPPER_DEFAULT_COMPILER})
    set(ENV{NVCC_WRAPPER_DEFAULT_COMPILER} g++)
  endif()
  find_program(_pk_nvcc nvcc PATHS /usr/local/cuda/bin)
  if(NOT _pk_nvcc)
    message(FATAL_ERROR "PortableKernels: PK_ENABLE_CUDA=ON but nvcc is not on PATH or in /usr/local/cuda/bin")
  endif()
  get_filename_component(_pk_cuda_bin "${_pk_nvcc}" DIRECTORY)
  set(ENV{PATH} "$ENV{PATH}:${_pk_cuda_bin}")
endif()
if(PK_ENABLE_HIP AND NOT CMAKE_CXX_COMPILER AND NOT DEFINED ENV{CXX})
  find_program(_pk_hipcc hipcc PATHS "$ENV{ROCM_PATH}/bin" /opt/rocm/bin)
  if(NOT _pk_hipcc)
    message(FATAL_ERROR "PortableKernels: PK_ENABLE_HIP=ON but hipcc is not on PATH, in $ROCM_PATH/bin or in "
                        "/opt/rocm/bin (Debian 12: apt-get install hipcc libamdhip64-dev rocm-device-libs "
                        "libomp-15-dev)")
  endif()
  set(CMAKE_CXX_COMPILER "${_pk_hipcc}")
endif()
