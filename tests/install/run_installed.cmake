# The installed tree on its own: installs the build into PREFIX (cmake --install), then runs
# the installed pk-bench from a directory outside the source tree, as a user of the install
# would: every kernel must run on OpenMP, and the BesselK table read must be the installed one.
#   cmake -DBUILD=<build dir> -DPREFIX=<new prefix> -P run_installed.cmake
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD}" --prefix "${PREFIX}"
                RESULT_VARIABLE status OUTPUT_QUIET)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD} --prefix ${PREFIX} failed (${status})")
endif()
set(table "${PREFIX}/share/portablekernels/besselk/reference.txt")
foreach(file "${table}" "${PREFIX}/share/portablekernels/plot_gbees.py")
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "not installed: ${file}")
  endif()
endforeach()

# A scratch directory outside the source tree (and the build tree, which may lie inside it).
if(DEFINED ENV{TMPDIR})
  set(tmp "$ENV{TMPDIR}")
else()
  set(tmp /tmp)
endif()
string(RANDOM LENGTH 8 tag)
set(work "${tmp}/pk-installed-${tag}")
file(MAKE_DIRECTORY "${work}")
# The environment must not point at the source tree's table.
set(run ${CMAKE_COMMAND} -E env --unset=PK_BESSELK_REFERENCE "${PREFIX}/bin/pk-bench")

execute_process(COMMAND ${run} --list WORKING_DIRECTORY "${work}" RESULT_VARIABLE status OUTPUT_VARIABLE listing)
string(REGEX MATCHALL "(^|\n)[a-z0-9_]+  " kernels "${listing}")
list(TRANSFORM kernels STRIP)
list(LENGTH kernels count)
if(NOT status EQUAL 0 OR count LESS 2)
  message(FATAL_ERROR "installed pk-bench --list failed (${status}):\n${listing}")
endif()

execute_process(COMMAND ${run} --space openmp --size tiny --out "${work}/results"
                WORKING_DIRECTORY "${work}" RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT status EQUAL 0)
  file(REMOVE_RECURSE "${work}")
  message(FATAL_ERROR "installed pk-bench --space openmp --size tiny exited with ${status}")
endif()
foreach(kernel IN LISTS kernels)
  if(NOT out MATCHES "(^|\n)${kernel} +[^\n]*openmp")
    file(REMOVE_RECURSE "${work}")
    message(FATAL_ERROR "installed pk-bench reported no OpenMP result for kernel '${kernel}'")
  endif()
endforeach()

# The installed copy is the one read: spoil it, and the besselk kernel must fail naming it.
file(WRITE "${table}" "not a table\n")
execute_process(COMMAND ${run} --space openmp --size tiny --kernel besselk --out "${work}/results"
                WORKING_DIRECTORY "${work}" RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(REMOVE_RECURSE "${work}")
if(status EQUAL 0 OR NOT "${out}${err}" MATCHES "share/portablekernels/besselk/reference.txt")
  message(FATAL_ERROR "installed pk-bench did not read ${table} (status ${status}):\n${out}${err}")
endif()
message("ok: the installed pk-bench ran ${kernels} from ${work} and reads ${table}")
