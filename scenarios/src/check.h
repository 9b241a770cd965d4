#pragma once
#include <map>
#include <string>

#include "mhcsim/error.h"
#include "mhcsim/specs.h"

namespace mhcsim::scenarios {

// Where each key present in the file was written, to anchor cross-key errors.
class KeyLocations {
 public:
  explicit KeyLocations(std::string file) : file_(std::move(file)) {}
  void add(const std::string& key, const SourceLocation& where) { where_[key] = where; }
  bool has(const std::string& key) const { return where_.count(key) != 0; }
  SourceLocation at(const std::string& key) const;  // file with line 0 when not written

 private:
  std::string file_;
  std::map<std::string, SourceLocation> where_;
};

// Fills derived defaults (kv_heads for MHA/MQA, dp from hardware.gpus, ...) and rejects
// inconsistent combinations: layers not divisible into stages, EP larger than experts,
// DualPipe with odd PP, FP8 GEMMs on a GPU without FP8, ...
void complete_and_check(Scenario& s, const KeyLocations& keys);

}  // namespace mhcsim::scenarios
