# The wall between the spec and the implementation, enforced at configure
# time: the grading libraries (contracts, generators, oracles, drivers,
# checks, engine, reports) must not link kernels/ or backends/, directly or
# through another library; they reach kernels only through core/backend.h.
# tests/wall_test.sh shows the check failing when a grading library links
# the kernels (KC_BREAK_WALL_FOR_TEST) and that no grading file includes
# kernels/ or backends/; the order of the folders inside each side is
# scripts/layers.py's (ctest unit.layers).

# Every target `target` links, transitively (PRIVATE links of a static
# library are linked into its users too).
function(kc_linked_targets target out_var)
  set(seen "")
  set(todo ${target})
  while(todo)
    list(POP_FRONT todo t)
    if(NOT TARGET ${t} OR t IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${t})
    get_target_property(libs ${t} LINK_LIBRARIES)
    get_target_property(ilibs ${t} INTERFACE_LINK_LIBRARIES)
    foreach(l IN LISTS libs ilibs)
      if(l AND NOT l MATCHES "NOTFOUND$" AND NOT l MATCHES "^\\$<")
        list(APPEND todo ${l})
      endif()
    endforeach()
  endwhile()
  list(REMOVE_ITEM seen ${target})
  set(${out_var} ${seen} PARENT_SCOPE)
endfunction()

# kc_check_wall(GRADING <targets...> FORBIDDEN <targets...>)
function(kc_check_wall)
  cmake_parse_arguments(W "" "" "GRADING;FORBIDDEN" ${ARGN})
  foreach(g IN LISTS W_GRADING)
    kc_linked_targets(${g} linked)
    foreach(f IN LISTS W_FORBIDDEN)
      if(f IN_LIST linked)
        message(FATAL_ERROR "The wall between spec and implementation is broken: grading library ${g} links ${f} "
                            "(the grading side reaches kernels only through core/backend.h; see cmake/Wall.cmake).")
      endif()
    endforeach()
  endforeach()
endfunction()
