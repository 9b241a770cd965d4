#include "mhcsim/sweep/mpi.h"

#include <cstdlib>
#include <stdexcept>

#ifdef MHCSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace mhcsim::sweep {
namespace {

int launched_ranks() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* v = std::getenv(var)) return std::atoi(v);
  return 1;
}

}  // namespace

bool built_with_mpi() {
#ifdef MHCSIM_HAVE_MPI
  return true;
#else
  return false;
#endif
}

Ranks mpi_ranks() {
#ifdef MHCSIM_HAVE_MPI
  static const Ranks ranks = [] {
    Ranks r;
    if (launched_ranks() <= 1) return r;
    int started = 0;
    MPI_Initialized(&started);
    if (!started) {
      MPI_Init(nullptr, nullptr);
      std::atexit([] {
        int done = 0;
        MPI_Finalized(&done);
        if (!done) MPI_Finalize();
      });
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r.size);
    return r;
  }();
  return ranks;
#else
  return {};
#endif
}

void send_to_root(const std::string& bytes) {
#ifdef MHCSIM_HAVE_MPI
  const auto n = static_cast<long long>(bytes.size());
  MPI_Send(&n, 1, MPI_LONG_LONG, 0, 0, MPI_COMM_WORLD);
  MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_CHAR, 0, 0, MPI_COMM_WORLD);
#else
  (void)bytes;
  throw std::logic_error("send_to_root: built without MPI");
#endif
}

std::string receive_from(int rank) {
#ifdef MHCSIM_HAVE_MPI
  long long n = 0;
  MPI_Recv(&n, 1, MPI_LONG_LONG, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::string bytes(static_cast<size_t>(n), '\0');
  MPI_Recv(bytes.data(), static_cast<int>(n), MPI_CHAR, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return bytes;
#else
  (void)rank;
  throw std::logic_error("receive_from: built without MPI");
#endif
}

void abort_all(int code) {
#ifdef MHCSIM_HAVE_MPI
  if (mpi_ranks().size > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

}  // namespace mhcsim::sweep
