# The commit recorded in benchmark results; re-read whenever HEAD moves. A source without
# .git (a release tarball, a Spack stage) records its version.
set(PK_COMMIT "${PROJECT_VERSION} (no git)")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${PROJECT_SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" describe --always --dirty --abbrev=12
                  WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
                  OUTPUT_VARIABLE _pk_described OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_pk_described)
    set(PK_COMMIT "${_pk_described}")
  endif()
  foreach(_f HEAD logs/HEAD index)
    if(EXISTS "${PROJECT_SOURCE_DIR}/.git/${_f}")
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/.git/${_f}")
    endif()
  endforeach()
endif()
