# mhcsim_library(NAME SOURCES file... [PUBLIC dep...] [PRIVATE dep...])
# Declares the library mhcsim_NAME and its alias mhcsim::NAME the way every mhcsim library is
# laid out: headers for its users under include/, its own private headers under src/, and the
# warning and sanitizer interface targets on its sources.
function(mhcsim_library name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;PUBLIC;PRIVATE")
  if(arg_UNPARSED_ARGUMENTS OR NOT arg_SOURCES)
    message(FATAL_ERROR "mhcsim_library(${name} SOURCES ... [PUBLIC ...] [PRIVATE ...]): got ${ARGN}")
  endif()
  set(target mhcsim_${name})
  add_library(${target} ${arg_SOURCES})
  add_library(mhcsim::${name} ALIAS ${target})
  target_include_directories(${target} PUBLIC include)
  if(IS_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/src)
    target_include_directories(${target} PRIVATE src)
  endif()
  target_link_libraries(${target} PUBLIC ${arg_PUBLIC} PRIVATE ${arg_PRIVATE} mhcsim_warnings mhcsim_sanitizers)
endfunction()
