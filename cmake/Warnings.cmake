# Warnings live on an INTERFACE target that every mhcsim target links, never on global flags.
add_library(mhcsim_warnings INTERFACE)
add_library(mhcsim::warnings ALIAS mhcsim_warnings)
target_compile_options(mhcsim_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wconversion-null>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${MHCSIM_WARNINGS_AS_ERRORS}>>:-Werror>)
option(MHCSIM_WARNINGS_AS_ERRORS "Treat compiler warnings as errors" OFF)
