# Configures SOURCE into BINARY the way the Spack recipe does (Kokkos_ROOT and
# KokkosKernels_ROOT given, bootstrap off), builds pk-info and runs it where it can start.
file(REMOVE_RECURSE "${BINARY}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${BINARY} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
          -DCMAKE_CXX_COMPILER=${CXX} -DKokkos_ROOT=${KOKKOS} -DKokkosKernels_ROOT=${KERNELS}
          -DPK_BOOTSTRAP_KOKKOS=OFF -DPK_ENABLE_CUDA=${ENABLE_CUDA}
          -DPK_ENABLE_HIP=${ENABLE_HIP} -DPK_ENABLE_TESTS=OFF
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "configuring with Kokkos_ROOT=${KOKKOS} failed")
endif()
if(NOT "${out}" MATCHES "using the Kokkos given by the user: ${KOKKOS}" OR "${out}${err}" MATCHES "bootstrapping")
  message(FATAL_ERROR "the configure step did not use Kokkos_ROOT=${KOKKOS} as given")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BINARY} --target pk-info RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "building against Kokkos_ROOT=${KOKKOS} failed")
endif()
execute_process(COMMAND ${BINARY}/apps/pk-info RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT ENABLE_CUDA AND NOT ENABLE_HIP AND NOT status EQUAL 0)
  message(FATAL_ERROR "pk-info built against Kokkos_ROOT=${KOKKOS} failed to run")
endif()
