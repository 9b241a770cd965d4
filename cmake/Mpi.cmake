# MPI (optional, OpenMPI from Debian): `mpirun -n R mhcsim sweep|search` splits the points over
# the ranks. mhcsim_use_mpi(target) links MPI and defines MHCSIM_HAVE_MPI=1 when MPI was found;
# without it the target builds and runs in one process.
find_package(MPI COMPONENTS CXX QUIET)
if(NOT MPI_CXX_FOUND)
  message(STATUS "mhcsim: MPI not found, sweep and search run in one process")
endif()

function(mhcsim_use_mpi target)
  if(MPI_CXX_FOUND)
    target_link_libraries(${target} PRIVATE MPI::MPI_CXX)
    target_compile_definitions(${target} PRIVATE MHCSIM_HAVE_MPI=1)
  endif()
endfunction()
