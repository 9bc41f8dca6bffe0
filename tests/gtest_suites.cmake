# One ctest test per GoogleTest suite, for the e2e binaries: the E2eTest
# fixture starts one server per suite (SetUpTestSuite), so a suite run in one
# process starts it once, where one ctest test per test (gtest_discover_tests)
# started it for every test: ~0.7 s each, most of the e2e time of a CI run.
#
# Included by the top-level CMakeLists.txt, which calls
#   tigerdoc_discover_gtest_suites(target LABELS l)
# for a test target built with tigerdoc_add_test(... PER_SUITE). Run with
# -P (after each build of the target) it lists the suites of BINARY into OUT.

if(CMAKE_SCRIPT_MODE_FILE)
  execute_process(COMMAND "${BINARY}" --gtest_list_tests
                  OUTPUT_VARIABLE listing RESULT_VARIABLE rc TIMEOUT 60)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${BINARY} --gtest_list_tests failed (${rc}):\n${listing}")
  endif()
  # Keep list separators out of the listing (parameter values may hold ';').
  string(REPLACE ";" "," listing "${listing}")
  string(REPLACE "\n" ";" lines "${listing}")
  set(content "")
  foreach(line IN LISTS lines)
    # A suite line: "Suite." or "Prefix/Suite." (then maybe "  # TypeParam = ...");
    # test lines are indented.
    if(line MATCHES "^([A-Za-z0-9_/]+)\\.( .*)?$")
      set(suite "${CMAKE_MATCH_1}")
      string(APPEND content
             "add_test(\"${suite}\" \"${BINARY}\" \"--gtest_filter=${suite}.*\")\n"
             "set_tests_properties(\"${suite}\" PROPERTIES LABELS \"${LABELS}\")\n")
    endif()
  endforeach()
  file(WRITE "${OUT}" "${content}")
  return()
endif()

function(tigerdoc_discover_gtest_suites target)
  cmake_parse_arguments(S "" "" "LABELS" ${ARGN})
  set(suites "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake")
  set(include "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites_include.cmake")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -D "BINARY=$<TARGET_FILE:${target}>" -D "OUT=${suites}"
            -D "LABELS=${S_LABELS}" -P "${CMAKE_CURRENT_FUNCTION_LIST_FILE}"
    BYPRODUCTS "${suites}"
    VERBATIM)
  # ctest reads the list if the target was built; else one failing test says so.
  file(WRITE "${include}"
       "if(EXISTS \"${suites}\")\n"
       "  include(\"${suites}\")\n"
       "else()\n"
       "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
       "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include}")
endfunction()
