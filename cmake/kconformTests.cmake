# kconform_add_conformance_tests(TARGET <plug-in library target>
#                                KERNELS <name>... DTYPES <dtype>...
#                                [PROFILE conformance|reference] [TIMEOUT <seconds>]
#                                [SHAPES tiny|tails|production|all|<set>|<problem file>]
#                                [ARGS <more kconform run arguments>...])
#
# Adds one ctest per kernel and dtype, named kconform.<kernel>.<dtype>, that
# grades the consumer's plug-in (a MODULE or SHARED library exporting
# kconform_plugin_register, include/kconform/plugin.h) with
# `kconform run --backend plugin:<the target's file>`. A test passes when
# the kernel x dtype passes its contract in that profile (default:
# conformance) and fails with kconform's report otherwise, whose replay
# commands reproduce each failure. SHAPES is `kconform run --shapes` (default: run's;
# a relative problem file is taken from the calling source folder).
# Works from an installed package
# (find_package(kconform)) and in-tree (add_subdirectory).
function(kconform_add_conformance_tests)
  cmake_parse_arguments(KC "" "TARGET;PROFILE;TIMEOUT;SHAPES" "KERNELS;DTYPES;ARGS" ${ARGN})
  if(NOT KC_TARGET OR NOT TARGET ${KC_TARGET})
    message(FATAL_ERROR "kconform_add_conformance_tests: TARGET must name a library target, got '${KC_TARGET}'")
  endif()
  if(NOT KC_KERNELS OR NOT KC_DTYPES)
    message(FATAL_ERROR "kconform_add_conformance_tests: give KERNELS and DTYPES")
  endif()
  if(NOT KC_PROFILE)
    set(KC_PROFILE conformance)
  endif()
  if(NOT KC_PROFILE MATCHES "^(conformance|reference)$")
    message(FATAL_ERROR "kconform_add_conformance_tests: PROFILE is conformance or reference, got '${KC_PROFILE}'")
  endif()
  set(extra "")
  if(KC_TIMEOUT)
    list(APPEND extra --timeout ${KC_TIMEOUT})
  endif()
  if(KC_SHAPES)
    set(shapes ${KC_SHAPES})
    if(shapes MATCHES "[/.]" AND NOT IS_ABSOLUTE "${shapes}")
      set(shapes ${CMAKE_CURRENT_SOURCE_DIR}/${shapes})
    endif()
    list(APPEND extra --shapes ${shapes})
  endif()
  foreach(kernel IN LISTS KC_KERNELS)
    foreach(dtype IN LISTS KC_DTYPES)
      add_test(NAME kconform.${kernel}.${dtype}
               COMMAND kconform::cli run --backend plugin:$<TARGET_FILE:${KC_TARGET}> --kernel ${kernel}
                       --dtype ${dtype} --profile ${KC_PROFILE} --progress 0 ${extra} ${KC_ARGS})
      set_tests_properties(kconform.${kernel}.${dtype} PROPERTIES LABELS "kconform")
    endforeach()
  endforeach()
endfunction()
