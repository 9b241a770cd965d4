#include "nccl_table.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <ostream>

namespace mhcsim::kernels::bench {

double CollectiveRow::algbw_gbps() const { return seconds > 0 ? double(size_bytes) / seconds / 1e9 : 0.0; }

double CollectiveRow::busbw_gbps() const {
  const double n = double(nranks);
  const double factor = collective == Collective::AllToAll ? (n - 1) / n : 2 * (n - 1) / n;
  return algbw_gbps() * factor;
}

const char* name(Collective c) { return c == Collective::AllToAll ? "alltoall" : "allreduce"; }

void print_header(std::ostream& os, int nranks, const std::string& devices) {
  os << fmt::format("# mhcsim_nccl_bench: {} ranks; devices: {}\n", nranks, devices);
  os << "# size = bytes of one rank's send buffer; busbw = algbw x (n-1)/n (alltoall), 2(n-1)/n (allreduce)\n";
  os << fmt::format("#{:>10} {:>14} {:>12} {:>6} {:>10} {:>12} {:>12} {:>7}\n", "collective", "size(B)", "count(elem)",
                    "type", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "#wrong");
}

void print_row(std::ostream& os, const CollectiveRow& r) {
  os << fmt::format(" {:>10} {:>14} {:>12} {:>6} {:>10.2f} {:>12.2f} {:>12.2f} {:>7}\n", name(r.collective),
                    r.size_bytes, r.count, "float", r.seconds * 1e6, r.algbw_gbps(), r.busbw_gbps(),
                    r.wrong < 0 ? std::string("N/A") : std::to_string(r.wrong));
}

std::string rows_json(const std::vector<CollectiveRow>& rows, int nranks, int nodes, const std::string& devices,
                      int nccl_version) {
  nlohmann::json j;
  j["context"] = {{"nranks", nranks},
                  {"nodes", nodes},
                  {"devices", devices},
                  {"nccl", nccl_version},
                  {"convention", "nccl-tests: size per rank, algbw = size/time, busbw from algbw"}};
  for (const auto& r : rows) {
    j["rows"].push_back(
        {{"name", fmt::format("NCCL_{}/bytes:{}/ranks:{}/nodes:{}", name(r.collective), r.size_bytes, nranks, nodes)},
         {"collective", name(r.collective)},
         {"size_bytes", r.size_bytes},
         {"count", r.count},
         {"time_us", r.seconds * 1e6},
         {"algbw_GBps", r.algbw_gbps()},
         {"busbw_GBps", r.busbw_gbps()},
         {"wrong", r.wrong}});
  }
  return j.dump(2);
}

}  // namespace mhcsim::kernels::bench
