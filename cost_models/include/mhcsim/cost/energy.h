#pragma once
// Energy of a run from GPU-hours: every GPU at its board power (TDP, the datasheet's maximum),
// times the facility's PUE (hardware.pue). An upper bound on the GPUs' own draw (training
// kernels rarely hold TDP throughout) and without the hosts' CPUs, NICs and switches unless
// the PUE is set to cover them.
#include "mhcsim/specs.h"

namespace mhcsim::cost {

// MWh for `gpu_hours` on h's GPUs: gpu_hours x TDP (W) x PUE / 1e6.
double energy_mwh(double gpu_hours, const HardwareSpec& h);

}  // namespace mhcsim::cost
