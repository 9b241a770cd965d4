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
  // The keys of `base` (which must outlive this), under those added here: a sweep point's
  // --set values over its template's file, without copying the file's keys at every point.
  static KeyLocations over(const KeyLocations& base) {
    KeyLocations k(base.file_);
    k.base_ = &base;
    return k;
  }
  void add(const std::string& key, const SourceLocation& where) { where_[key] = where; }
  bool has(const std::string& key) const { return find(key) != nullptr; }
  SourceLocation at(const std::string& key) const;  // file with line 0 when not written

 private:
  const SourceLocation* find(const std::string& key) const {
    if (const auto it = where_.find(key); it != where_.end()) return &it->second;
    return base_ ? base_->find(key) : nullptr;
  }
  std::string file_;
  const KeyLocations* base_ = nullptr;
  std::map<std::string, SourceLocation> where_;
};

// Fills derived defaults (kv_heads for MHA/MQA, dp from hardware.gpus, ...) and rejects
// inconsistent combinations: layers not divisible into stages, EP larger than experts,
// DualPipe with odd PP, FP8 GEMMs on a GPU without FP8, ...
void complete_and_check(Scenario& s, const KeyLocations& keys);

}  // namespace mhcsim::scenarios
