#pragma once
// MPI for sweeps and searches launched by `mpirun -n R`: which rank this process is, and blocks
// of bytes sent to rank 0 (in order per sender: MPI does not let messages of one sender with
// one tag overtake each other). Without mpirun, or in a build without MPI, there is one rank.
#include <string>

namespace mhcsim::sweep {

struct Ranks {
  int rank = 0;
  int size = 1;
};
// Starts MPI on the first call when the process was launched by mpirun with more than one rank
// (OMPI_COMM_WORLD_SIZE or PMI_SIZE > 1), and finalises it at exit.
Ranks mpi_ranks();
bool built_with_mpi();

void send_to_root(const std::string& bytes);
std::string receive_from(int rank);
// Ends every rank at once (a rank that failed while others wait for it).
[[noreturn]] void abort_all(int code);

}  // namespace mhcsim::sweep
