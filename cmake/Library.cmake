include(GNUInstallDirs)

# mhcsim_library(NAME SOURCES file... [PUBLIC dep...] [PRIVATE dep...])
# Declares the library mhcsim_NAME and its alias mhcsim::NAME the way every mhcsim library is
# laid out: headers for its users under include/, its own private headers under src/, and the
# warning and sanitizer interface targets on its sources. `cmake --install` puts the library
# and its headers in place and exports it as mhcsim::NAME (cmake/Install.cmake writes the
# package config).
function(mhcsim_library name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;PUBLIC;PRIVATE")
  if(arg_UNPARSED_ARGUMENTS OR NOT arg_SOURCES)
    message(FATAL_ERROR "mhcsim_library(${name} SOURCES ... [PUBLIC ...] [PRIVATE ...]): got ${ARGN}")
  endif()
  set(target mhcsim_${name})
  add_library(${target} ${arg_SOURCES})
  add_library(mhcsim::${name} ALIAS ${target})
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
                             $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  if(IS_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/src)
    target_include_directories(${target} PRIVATE src)
  endif()
  # The warning and sanitizer flags are the build's own; an installed library does not pass them on.
  target_link_libraries(${target} PUBLIC ${arg_PUBLIC}
                        PRIVATE ${arg_PRIVATE} $<BUILD_INTERFACE:mhcsim_warnings> $<BUILD_INTERFACE:mhcsim_sanitizers>)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  install(TARGETS ${target} EXPORT mhcsimTargets)
  set_property(GLOBAL APPEND PROPERTY MHCSIM_LIBRARIES ${target})
  install(DIRECTORY include/ TYPE INCLUDE PATTERN "*.in" EXCLUDE)
endfunction()

# mhcsim_bench(NAME SOURCES file... LIBS lib...)
# A Google Benchmark driver mhcsim_NAME_bench for a library, built when MHCSIM_BUILD_BENCH is on;
# MHCSIM_SOURCE_DIR lets it read the shipped scenarios.
function(mhcsim_bench name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;LIBS")
  if(NOT MHCSIM_BUILD_BENCH)
    return()
  endif()
  set(target mhcsim_${name}_bench)
  add_executable(${target} ${arg_SOURCES})
  target_link_libraries(${target} PRIVATE ${arg_LIBS} benchmark::benchmark mhcsim_warnings)
  target_compile_definitions(${target} PRIVATE MHCSIM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endfunction()
