// The HBM probes move the bytes they claim to (their bandwidth is only meaningful if so).
#include <catch2/catch.hpp>

#include <numeric>

#include "../cases.h"
#include "mhcsim/kernels/device_buffer.h"
#include "mhcsim/kernels/hbm_probe.h"

using namespace mhcsim::kernels;

TEST_CASE("gpu hbm_copy copies and hbm_read reads every byte", "[gpu][probe]") {
  const size_t floats = (size_t(64) << 20) / sizeof(float) + 4;  // 64 MiB + one 16-byte vector
  const auto src = testing::uniform(floats, 0.0f, 1.0f, 501);
  DeviceBuffer<float> d_src(src), d_dst(floats), partial(size_t(hbm_read_partials(int64_t(floats * 4))));
  hbm_copy(d_dst.data(), d_src.data(), int64_t(floats * 4), nullptr);
  CHECK(d_dst.download() == src);
  hbm_read(partial.data(), d_src.data(), int64_t(floats * 4), nullptr);
  const auto parts = partial.download();
  const double got = std::accumulate(parts.begin(), parts.end(), 0.0);
  const double want = std::accumulate(src.begin(), src.end(), 0.0);
  // fp32 partial sums of ~16k values in [0, 1) per thread chain: rel. error << 1e-3.
  CHECK(std::abs(got - want) <= 1e-3 * want);
}
