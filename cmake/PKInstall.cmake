# Installs the libraries, headers and a CMake package, so that other projects can
# find_package(PortableKernels [COMPONENTS ...]) and link PortableKernels::<component>.
# Each library is its own export set, so that the package config loads (and finds the
# dependencies of) only the components a consumer asks for.
include(CMakePackageConfigHelpers)

set(PK_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/PortableKernels)
set(pk_components core lbm gbees rfilter besselk app)
if(PK_ENABLE_MPI)
  list(INSERT pk_components 1 mpi)
endif()
if(PK_ENABLE_HDF5)
  list(APPEND pk_components hdf5)
endif()
if(PK_ENABLE_SCALAPACK)
  list(APPEND pk_components besselk_distributed)
endif()
if(PK_BUILD_CUSOLVERMG)
  list(APPEND pk_components besselk_multi_gpu)
endif()
foreach(component IN LISTS pk_components)
  install(TARGETS pk_${component} EXPORT PortableKernels-${component}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT PortableKernels-${component} NAMESPACE PortableKernels:: DESTINATION ${PK_CMAKE_DIR})
endforeach()
install(DIRECTORY include/pk DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

configure_package_config_file(cmake/PortableKernelsConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/PortableKernelsConfig.cmake INSTALL_DESTINATION ${PK_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/PortableKernelsConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/PortableKernelsConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/PortableKernelsConfigVersion.cmake
        DESTINATION ${PK_CMAKE_DIR})
