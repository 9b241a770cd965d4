# `cmake --install`: the libraries and their headers (mhcsim_library), the CLI (cli/), the
# shipped scenarios, and a CMake package, so that a project can
#   find_package(mhcsim) and target_link_libraries(app mhcsim::cost).
# The package finds the libraries' dependencies the way this build did (mhcsimConfig.cmake.in).
include(CMakePackageConfigHelpers)
set(MHCSIM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/mhcsim)
set(MHCSIM_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/mhcsim)

install(FILES scenarios/deepseek_v3_train.toml scenarios/deepseek_v3_serve.toml scenarios/llama3_70b_gqa.toml
              scenarios/mhc_27b_h100.toml scenarios/README.md
        DESTINATION ${MHCSIM_INSTALL_DATADIR}/scenarios)
install(DIRECTORY scenarios/validation scenarios/hardware DESTINATION ${MHCSIM_INSTALL_DATADIR}/scenarios)
install(DIRECTORY schemas/ DESTINATION ${MHCSIM_INSTALL_DATADIR}/schemas)

install(EXPORT mhcsimTargets NAMESPACE mhcsim:: DESTINATION ${MHCSIM_INSTALL_CMAKEDIR})
set(MHCSIM_RE2_FROM_PKGCONFIG OFF)
if(TARGET PkgConfig::RE2)
  set(MHCSIM_RE2_FROM_PKGCONFIG ON)
endif()
# Optional dependencies a library links only when they were found (search: MPI).
set(MHCSIM_USES_MPI OFF)
get_property(_mhcsim_libraries GLOBAL PROPERTY MHCSIM_LIBRARIES)
foreach(_lib IN LISTS _mhcsim_libraries)
  get_target_property(_links ${_lib} LINK_LIBRARIES)
  if("MPI::MPI_CXX" IN_LIST _links)
    set(MHCSIM_USES_MPI ON)
  endif()
endforeach()
configure_package_config_file(cmake/mhcsimConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/mhcsimConfig.cmake
                              INSTALL_DESTINATION ${MHCSIM_INSTALL_CMAKEDIR}
                              PATH_VARS MHCSIM_INSTALL_DATADIR)
# 0.x: a minor release may change the API.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/mhcsimConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mhcsimConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/mhcsimConfigVersion.cmake
        DESTINATION ${MHCSIM_INSTALL_CMAKEDIR})
