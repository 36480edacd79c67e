# ctest cannot silently skip: every Catch2 test case must be exactly one ctest entry.
# A TEST_CASE name with ';' is split by catch_discover_tests into entries that match no case
# (they ran nothing and passed); this check fails when the two counts differ.
#   cmake -DTEST_BINARY=... -DCTEST=... -DBUILD_DIR=... -P check_test_count.cmake
execute_process(COMMAND "${TEST_BINARY}" --list-test-names-only
                OUTPUT_VARIABLE names RESULT_VARIABLE listed)
string(REGEX MATCHALL "[^\n]+" names "${names}")
list(LENGTH names cases)
execute_process(COMMAND "${CTEST}" -N -L "^catch2$" --test-dir "${BUILD_DIR}"
                OUTPUT_VARIABLE ctest_out RESULT_VARIABLE ctest_rc)
if(NOT ctest_rc EQUAL 0 OR NOT ctest_out MATCHES "Total Tests: ([0-9]+)")
  message(FATAL_ERROR "ctest -N failed (${ctest_rc}):\n${ctest_out}")
endif()
set(entries ${CMAKE_MATCH_1})
if(cases EQUAL 0)
  message(FATAL_ERROR "${TEST_BINARY} lists no test cases")
endif()
if(NOT cases EQUAL entries)
  message(FATAL_ERROR "${cases} Catch2 test cases but ${entries} ctest entries: a TEST_CASE name "
                      "probably contains ';' (ctest splits it). Rename it.")
endif()
message(STATUS "${cases} Catch2 test cases, ${entries} ctest entries")
