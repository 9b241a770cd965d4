# ASan + UBSan for the `asan` preset; applied through an INTERFACE target.
option(MHCSIM_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
add_library(mhcsim_sanitizers INTERFACE)
if(MHCSIM_SANITIZE)
  set(_san -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  # -O1 over the Debug preset's -O0, as the AddressSanitizer documentation advises for speed:
  # at -O0 the serving capacity and configuration searches ran 35-45x slower than the Release
  # build and pushed CI past its 90 minutes; at -O1 3x faster (`serve --max-rate` over 200
  # requests: 296 s -> 97 s). Not in the test binaries (MHCSIM_TEST_BINARY, tests/): their time
  # goes to the libraries' code, and Catch2's expansions compile 2.4x slower at -O1 (36 s ->
  # 86 s for test_search.cpp). Assertions stay on either way.
  target_compile_options(
    mhcsim_sanitizers INTERFACE $<$<COMPILE_LANGUAGE:CXX>:${_san}>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<NOT:$<BOOL:$<TARGET_PROPERTY:MHCSIM_TEST_BINARY>>>>:-O1>)
  target_link_options(mhcsim_sanitizers INTERFACE ${_san})
endif()
