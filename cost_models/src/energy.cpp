#include "mhcsim/cost/energy.h"

namespace mhcsim::cost {

double energy_mwh(double gpu_hours, const HardwareSpec& h) {
  constexpr double kWattHoursPerMegawattHour = 1e6;
  return gpu_hours * h.gpu.tdp_watts * h.pue / kWattHoursPerMegawattHour;
}

}  // namespace mhcsim::cost
