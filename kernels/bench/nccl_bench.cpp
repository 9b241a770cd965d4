// NCCL all-to-all and all-reduce probe in the shape of nccl-tests, one MPI rank per GPU:
//   mpirun -np 8 mhcsim_nccl_bench -b 1M -e 1G -f 2 -n 20 -w 5 -c 1 --json out.json
// Across nodes the same command runs under an mpirun hostfile. The exit code is 1 when the
// correctness check (-c 1) finds a wrong element, 77 without a GPU, 2 on bad flags.
#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "mhcsim/kernels/cuda_check.h"
#include "mhcsim/kernels/device_buffer.h"
#include "nccl_table.h"

using namespace mhcsim::kernels;
using namespace mhcsim::kernels::bench;

#define MHCSIM_NCCL_CHECK(expr)                                                                                \
  do {                                                                                                         \
    const ncclResult_t mhcsim_nccl_status = (expr);                                                            \
    if (mhcsim_nccl_status != ncclSuccess) {                                                                   \
      throw CudaError(__FILE__, __LINE__, std::string(#expr) + ": " + ncclGetErrorString(mhcsim_nccl_status)); \
    }                                                                                                          \
  } while (0)

namespace {

struct Options {
  std::string min_bytes = "1M", max_bytes = "256M";
  int factor = 4, iterations = 20, warmup = 5, check = 1;
  std::vector<std::string> ops = {"alltoall", "allreduce"};
  std::string json_path;
};

// "64", "8K", "256M", "1G": binary multiples, as nccl-tests reads -b/-e.
int64_t parse_bytes(const std::string& text) {
  size_t used = 0;
  const double value = std::stod(text, &used);
  const std::string suffix = text.substr(used);
  const double scale = suffix.empty()  ? 1.0
                       : suffix == "K" ? 1024.0
                       : suffix == "M" ? 1048576.0
                       : suffix == "G" ? 1073741824.0
                                       : -1.0;
  if (scale < 0 || value <= 0) throw CLI::ValidationError("size", "expected a number with K, M or G: " + text);
  return static_cast<int64_t>(value * scale);
}

// Send-buffer value of element i on rank r: small integers, exact in fp32 and in sums of
// up to 2^14 ranks.
float pattern(int rank, int64_t i) { return float((int64_t(rank) * 131 + i) % 1024); }

struct Context {
  int rank = 0, nranks = 1;
  ncclComm_t comm{};
  cudaStream_t stream{};
};

CollectiveRow run_one(const Context& ctx, Collective op, int64_t count, const Options& opt) {
  CollectiveRow row;
  row.collective = op;
  row.nranks = ctx.nranks;
  row.count = count;
  row.size_bytes = count * int64_t(sizeof(float));
  std::vector<float> host(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) host[size_t(i)] = pattern(ctx.rank, i);
  DeviceBuffer<float> send(host), recv(host.size());
  const int64_t chunk = count / ctx.nranks;
  const auto launch = [&] {
    if (op == Collective::AllReduce) {
      MHCSIM_NCCL_CHECK(
          ncclAllReduce(send.data(), recv.data(), size_t(count), ncclFloat, ncclSum, ctx.comm, ctx.stream));
      return;
    }
    MHCSIM_NCCL_CHECK(ncclGroupStart());  // pairwise exchange, as nccl-tests' alltoall
    for (int peer = 0; peer < ctx.nranks; ++peer) {
      MHCSIM_NCCL_CHECK(ncclSend(send.data() + peer * chunk, size_t(chunk), ncclFloat, peer, ctx.comm, ctx.stream));
      MHCSIM_NCCL_CHECK(ncclRecv(recv.data() + peer * chunk, size_t(chunk), ncclFloat, peer, ctx.comm, ctx.stream));
    }
    MHCSIM_NCCL_CHECK(ncclGroupEnd());
  };
  for (int w = 0; w < opt.warmup; ++w) launch();
  MHCSIM_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
  MPI_Barrier(MPI_COMM_WORLD);
  cudaEvent_t start{}, stop{};
  MHCSIM_CUDA_CHECK(cudaEventCreate(&start));
  MHCSIM_CUDA_CHECK(cudaEventCreate(&stop));
  MHCSIM_CUDA_CHECK(cudaEventRecord(start, ctx.stream));
  for (int it = 0; it < opt.iterations; ++it) launch();
  MHCSIM_CUDA_CHECK(cudaEventRecord(stop, ctx.stream));
  MHCSIM_CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  MHCSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  double seconds = double(ms) * 1e-3 / opt.iterations;
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);  // slowest rank
  row.seconds = seconds;
  if (!opt.check) {
    row.wrong = -1;
    return row;
  }
  const std::vector<float> got = recv.download();
  int64_t wrong = 0;
  for (int64_t i = 0; i < count; ++i) {
    float want = 0;
    if (op == Collective::AllReduce) {
      for (int r = 0; r < ctx.nranks; ++r) want += pattern(r, i);
    } else {
      const int peer = int(i / chunk);  // chunk `peer` came from rank peer's slot for us
      want = pattern(peer, ctx.rank * chunk + i % chunk);
    }
    wrong += got[size_t(i)] != want;
  }
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  row.wrong = wrong;
  return row;
}

int run(int argc, char** argv, int rank, int nranks) {
  Options opt;
  CLI::App app{"NCCL all-to-all / all-reduce bandwidth (nccl-tests columns), one MPI rank per GPU"};
  app.add_option("-b,--minbytes", opt.min_bytes, "smallest send buffer per rank (K/M/G)");
  app.add_option("-e,--maxbytes", opt.max_bytes, "largest send buffer per rank (K/M/G)");
  app.add_option("-f,--stepfactor", opt.factor, "size multiplier")->check(CLI::Range(2, 1024));
  app.add_option("-n,--iters", opt.iterations, "timed iterations")->check(CLI::Range(1, 100000));
  app.add_option("-w,--warmup_iters", opt.warmup, "warm-up iterations")->check(CLI::Range(0, 10000));
  app.add_option("-c,--check", opt.check, "check results (0/1)")->check(CLI::Range(0, 1));
  app.add_option("--op", opt.ops, "collectives")->check(CLI::IsMember({"alltoall", "allreduce"}));
  app.add_option("--json", opt.json_path, "write the rows as JSON (rank 0)");
  int64_t min_bytes = 0, max_bytes = 0;
  try {
    app.parse(argc, argv);
    min_bytes = parse_bytes(opt.min_bytes);
    max_bytes = parse_bytes(opt.max_bytes);
  } catch (const CLI::ParseError& e) {
    return rank == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    if (rank == 0) std::printf("SKIPPED: no CUDA device\n");
    return 77;
  }
  MPI_Comm local{};
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
  int local_rank = 0;
  MPI_Comm_rank(local, &local_rank);
  MPI_Comm_free(&local);
  // One shared-memory group per node: calib fits rows over more than one node as inter-node.
  int first_on_node = local_rank == 0 ? 1 : 0, nodes = 1;
  MPI_Allreduce(&first_on_node, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MHCSIM_CUDA_CHECK(cudaSetDevice(local_rank % devices));

  Context ctx;
  ctx.rank = rank;
  ctx.nranks = nranks;
  ncclUniqueId id{};
  if (rank == 0) MHCSIM_NCCL_CHECK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  MHCSIM_NCCL_CHECK(ncclCommInitRank(&ctx.comm, nranks, id, rank));
  MHCSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking));
  cudaDeviceProp prop{};
  MHCSIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, local_rank % devices));
  int nccl_version = 0;
  ncclGetVersion(&nccl_version);
  const std::string devices_text = std::string(prop.name) + ", NCCL " + std::to_string(nccl_version);

  if (rank == 0) print_header(std::cout, nranks, devices_text);
  std::vector<CollectiveRow> rows;
  int64_t wrong = 0;
  for (const std::string& op_name : opt.ops) {
    const Collective op = op_name == "alltoall" ? Collective::AllToAll : Collective::AllReduce;
    for (int64_t bytes = min_bytes; bytes <= max_bytes; bytes *= opt.factor) {
      int64_t count = bytes / int64_t(sizeof(float));
      count -= count % nranks;  // all-to-all sends count / nranks to each peer
      if (count == 0) continue;
      rows.push_back(run_one(ctx, op, count, opt));
      wrong += std::max<int64_t>(rows.back().wrong, 0);
      if (rank == 0) print_row(std::cout, rows.back());
    }
  }
  if (rank == 0) {
    std::cout << "# Out of bounds values : " << wrong << (wrong ? " FAILED" : " OK") << "\n";
    if (!opt.json_path.empty())
      std::ofstream(opt.json_path) << rows_json(rows, nranks, nodes, devices_text, nccl_version) << "\n";
  }
  ncclCommDestroy(ctx.comm);
  cudaStreamDestroy(ctx.stream);
  return wrong > 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int code = 0;
  try {
    code = run(argc, argv, rank, nranks);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Finalize();
  return code;
}
