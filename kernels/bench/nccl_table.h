#pragma once
// nccl-tests conventions for the NCCL probe (DESIGN.md): size = bytes of one rank's send
// buffer; algbw = size / time; busbw = algbw x (n-1)/n for all-to-all, x 2(n-1)/n for
// all-reduce. The table has '#'-commented headers, units in the column names and #wrong.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace mhcsim::kernels::bench {

enum class Collective { AllToAll, AllReduce };

struct CollectiveRow {
  Collective collective = Collective::AllToAll;
  int64_t size_bytes = 0;
  int64_t count = 0;  // fp32 elements in one rank's send buffer
  int nranks = 1;
  double seconds = 0;  // per operation, max over ranks
  int64_t wrong = 0;   // elements that failed the check, summed over ranks (-1: not checked)
  double algbw_gbps() const;
  double busbw_gbps() const;
};

const char* name(Collective c);
void print_header(std::ostream& os, int nranks, const std::string& devices);
void print_row(std::ostream& os, const CollectiveRow& row);
std::string rows_json(const std::vector<CollectiveRow>& rows, int nranks, int nodes, const std::string& devices,
                      int nccl_version);

}  // namespace mhcsim::kernels::bench
