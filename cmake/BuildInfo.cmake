# Facts about the build that the results JSON records (run metadata): the
# project commit, compiler and flags. Library versions are read at run time.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                OUTPUT_VARIABLE KC_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT KC_GIT_COMMIT)
  set(KC_GIT_COMMIT "unknown")
endif()
string(TOUPPER "${CMAKE_BUILD_TYPE}" _kc_bt)
set(KC_CXX_FLAGS "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${_kc_bt}} -ffp-contract=off -fno-fast-math")
set(KC_COMPILER "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}")
set(KC_BUILD_INFO_CPP ${PROJECT_BINARY_DIR}/build_info.cpp)
configure_file(${PROJECT_SOURCE_DIR}/cmake/build_info.cpp.in ${KC_BUILD_INFO_CPP} @ONLY)
