# Writes bnsim_version.h with `git describe --always --dirty` of SOURCE_DIR, run at every build
# (sim/CMakeLists.txt); the header is rewritten only when the version changes, so only
# provenance.cpp recompiles. Outside a git checkout (a source tarball) the version is "unknown".
#   cmake -DSOURCE_DIR=... -DOUTPUT=.../bnsim_version.h -P version.cmake
set(version "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" describe --always --dirty --tags
                  OUTPUT_VARIABLE described RESULT_VARIABLE rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(rc EQUAL 0 AND NOT described STREQUAL "")
    set(version "${described}")
  endif()
endif()
file(CONFIGURE OUTPUT "${OUTPUT}" CONTENT "#pragma once\n#define BNSIM_VERSION \"@version@\"\n" @ONLY)
