# Writes build_info.cpp (cmake/BuildInfo.cmake runs this at every build):
# the commit HEAD names, "-dirty" where tracked files differ from it.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${KC_SOURCE}
                OUTPUT_VARIABLE KC_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _kc_rc)
if(NOT _kc_rc EQUAL 0 OR NOT KC_GIT_COMMIT)
  set(KC_GIT_COMMIT "unknown")
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${KC_SOURCE}
                  OUTPUT_VARIABLE _kc_changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_kc_changes)
    string(APPEND KC_GIT_COMMIT "-dirty")
  endif()
endif()
set(PROJECT_VERSION ${KC_VERSION})
configure_file(${KC_SOURCE}/cmake/build_info.cpp.in ${KC_OUT} @ONLY)
