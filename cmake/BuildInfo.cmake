# Facts about the build that the results JSON records (run metadata): the
# project commit, compiler and flags. Library versions are read at run time.
# The commit is read at every build, not once at configure time (a build
# after a new commit would otherwise record the old one), and marked
# "-dirty" where tracked files differ from it: a result names the sources
# that produced it. cmake/WriteBuildInfo.cmake rewrites build_info.cpp only
# when its text changes, so an unchanged commit recompiles nothing.
string(TOUPPER "${CMAKE_BUILD_TYPE}" _kc_bt)
set(KC_CXX_FLAGS "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${_kc_bt}} -ffp-contract=off -fno-fast-math")
set(KC_COMPILER "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}")
set(KC_BUILD_INFO_CPP ${PROJECT_BINARY_DIR}/build_info.cpp)
set(_kc_build_info_args -DKC_SOURCE=${PROJECT_SOURCE_DIR} -DKC_OUT=${KC_BUILD_INFO_CPP} -DKC_COMPILER=${KC_COMPILER}
    -DKC_CXX_FLAGS=${KC_CXX_FLAGS} -DKC_VERSION=${PROJECT_VERSION} -P ${PROJECT_SOURCE_DIR}/cmake/WriteBuildInfo.cmake)
execute_process(COMMAND ${CMAKE_COMMAND} ${_kc_build_info_args})  # (the file exists before the first build)
add_custom_target(kc_build_info COMMAND ${CMAKE_COMMAND} ${_kc_build_info_args} BYPRODUCTS ${KC_BUILD_INFO_CPP}
                  VERBATIM)
