# Installs the library, headers and a CMake package, so that other projects can
# find_package(PortableKernels) and link PortableKernels::core.
include(CMakePackageConfigHelpers)

set(pk_installed_libraries pk_core pk_lbm pk_rfilter pk_gbees pk_besselk)
if(PK_ENABLE_MPI)
  list(APPEND pk_installed_libraries pk_mpi)
endif()
if(PK_ENABLE_HDF5)
  list(APPEND pk_installed_libraries pk_hdf5)
endif()
install(TARGETS ${pk_installed_libraries} EXPORT PortableKernelsTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/pk DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(PK_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/PortableKernels)
install(EXPORT PortableKernelsTargets NAMESPACE PortableKernels:: DESTINATION ${PK_CMAKE_DIR})
configure_package_config_file(cmake/PortableKernelsConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/PortableKernelsConfig.cmake INSTALL_DESTINATION ${PK_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/PortableKernelsConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/PortableKernelsConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/PortableKernelsConfigVersion.cmake
        DESTINATION ${PK_CMAKE_DIR})
