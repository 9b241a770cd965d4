# ASan + UBSan for the `asan` preset; applied through an INTERFACE target.
option(MHCSIM_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
add_library(mhcsim_sanitizers INTERFACE)
if(MHCSIM_SANITIZE)
  set(_san -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_compile_options(mhcsim_sanitizers INTERFACE $<$<COMPILE_LANGUAGE:CXX>:${_san}>)
  target_link_options(mhcsim_sanitizers INTERFACE ${_san})
endif()
