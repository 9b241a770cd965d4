#include "mhcsim/cost/rates.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "check.h"
#include "mhcsim/cost/gemm_model.h"
#include "mhcsim/units.h"

namespace mhcsim::cost {

namespace {
const CollectiveFit* collective(const Scenario& s, const char* name) {
  if (!s.calibration) return nullptr;
  const auto it = s.calibration->collectives.find(name);
  return it == s.calibration->collectives.end() ? nullptr : &it->second;
}
const BandwidthFit* kernel_fit(const Scenario& s, std::string_view name) {
  if (!s.calibration) return nullptr;
  const auto it = s.calibration->kernels.find(std::string(name));
  return it == s.calibration->kernels.end() ? nullptr : &it->second;
}
LinkRate link(const Scenario& s, const char* name, double gbps, double efficiency, double latency_us, const char* key) {
  if (const auto* fit = collective(s, name)) return {fit->alpha_seconds, gbps_to_bytes_per_second(fit->bus_gbps)};
  check(gbps > 0, key, [&] { return "bandwidth must be > 0 (or calibrate " + std::string(name) + ")"; });
  return {latency_us * kUs, gbps_to_bytes_per_second(gbps * efficiency)};
}
}  // namespace

GemmRates gemm_rates(const Scenario& s, DType dtype) {
  const auto& g = s.hardware.gpu;
  const double peak = dtype == DType::FP8 ? g.fp8_tflops : g.bf16_tflops;
  check(peak > 0, "precision.gemm",
        [&] { return "GPU " + g.name + " has no " + std::string(to_string(dtype)) + " tensor-core peak"; });
  GemmRates r;
  r.peak_flops_per_second = tflops_to_flops_per_second(peak);
  r.plateau_efficiency = s.calibration && s.calibration->gemm_efficiency ? *s.calibration->gemm_efficiency
                         : dtype != DType::FP8                           ? kDefaultGemmEfficiencyBf16
                         : s.precision.fp8_gemm_kernels == Fp8GemmKernels::Cutlass36
                             ? kDefaultGemmEfficiencyFp8 / kCutlass36Fp8Slowdown
                             : kDefaultGemmEfficiencyFp8;
  const double sm = compute_sm_fraction(s);
  r.sms = std::max(1, static_cast<int>(std::lround(g.sm_count * sm)));
  // The SMs given to communication take their share of the tensor cores with them.
  r.peak_flops_per_second *= g.sm_count > 0 ? static_cast<double>(r.sms) / g.sm_count : 1.0;
  const auto hbm = hbm_rate(s, "hbm_copy");
  r.hbm_bytes_per_second = hbm.bytes_per_second;
  r.launch_seconds = hbm.alpha_seconds > 0 ? hbm.alpha_seconds : kDefaultLaunchSeconds;
  return r;
}

double gemm_flops_per_second(const Scenario& s, DType dtype) {
  const auto r = gemm_rates(s, dtype);
  return r.peak_flops_per_second * r.plateau_efficiency;
}

double decode_attention_flops_per_second(const Scenario& s) {
  const auto& g = s.hardware.gpu;
  check(g.bf16_tflops > 0, "hardware.gpu.bf16_tflops", "must be > 0");
  return tflops_to_flops_per_second(g.bf16_tflops) * kDefaultDecodeAttentionEfficiency;
}

double compute_sm_fraction(const Scenario& s) {
  const int sms = s.hardware.gpu.sm_count;
  const bool cross_node_ep = s.model.is_moe() && s.parallel.ep > s.hardware.nvlink_domain();
  if (!cross_node_ep || sms <= kCommunicationSms) return 1.0;
  return static_cast<double>(sms - kCommunicationSms) / sms;
}

LinkRate hbm_rate(const Scenario& s, std::string_view kernel) {
  const auto* fit = kernel_fit(s, kernel);
  if (!fit) fit = kernel_fit(s, "hbm_copy");
  if (fit) return {fit->overhead_seconds, gbps_to_bytes_per_second(fit->bandwidth_gbps)};
  check(s.hardware.gpu.hbm_gb_per_s > 0, "hardware.gpu.hbm_gb_per_s", "must be > 0");
  return {0.0, gbps_to_bytes_per_second(s.hardware.gpu.hbm_gb_per_s * kDefaultHbmEfficiency)};
}

LinkRate nvlink_rate(const Scenario& s) {
  const auto& h = s.hardware;
  return link(s, "alltoall_intra", h.gpu.nvlink_gb_per_s, kDefaultNvlinkEfficiency, h.nvlink_latency_us,
              "hardware.gpu.nvlink_gb_per_s");
}

LinkRate nic_rate(const Scenario& s) {
  const auto& h = s.hardware;
  return link(s, "alltoall_inter", h.nic_gb_per_s_per_gpu, kDefaultNicEfficiency, h.nic_latency_us,
              "hardware.nic_gb_per_s_per_gpu");
}

LinkRate allreduce_rate(const Scenario& s, bool cross_node) {
  const auto& h = s.hardware;
  return cross_node ? link(s, "allreduce_inter", h.nic_gb_per_s_per_gpu, kDefaultNicEfficiency, h.nic_latency_us,
                           "hardware.nic_gb_per_s_per_gpu")
                    : link(s, "allreduce_intra", h.gpu.nvlink_gb_per_s, kDefaultNvlinkEfficiency, h.nvlink_latency_us,
                           "hardware.gpu.nvlink_gb_per_s");
}

double ring_all_reduce_seconds(const LinkRate& link, double bytes, double ranks) {
  if (ranks <= 1 || bytes <= 0) return 0;
  return link.seconds(2.0 * (ranks - 1.0) / ranks * bytes, 2.0 * (ranks - 1.0));
}

}  // namespace mhcsim::cost
