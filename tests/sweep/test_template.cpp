// The sweep's fast path must mean exactly what the loader means: an instance of a parsed
// template with overrides equals load_scenario_from_string with the same overrides, values
// and errors alike.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "mhcsim/error.h"
#include "mhcsim/scenarios/describe.h"
#include "mhcsim/scenarios/template.h"

using namespace mhcsim;
using scenarios::Override;

namespace {

std::string scenario_text(const std::string& name) {
  std::ifstream in(std::string(MHCSIM_SOURCE_DIR) + "/scenarios/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("template instances equal the loader's result for the same overrides") {
  const auto file = GENERATE(as<std::string>{}, "deepseek_v3_train.toml", "llama3_70b_gqa.toml", "mhc_27b_h100.toml",
                             "deepseek_v3_serve.toml");
  const std::string text = scenario_text(file);
  REQUIRE(!text.empty());
  scenarios::ScenarioTemplate tpl(text, file);
  const std::vector<std::vector<Override>> cases = {
      {},
      {{"parallel.pp", "8"}},
      {{"parallel.micro_batches", "64"}, {"parallel.overlap", "0.5"}},
      {{"hardware.gpu", "H200"}},  // re-seeds the hardware before single values apply
      {{"hardware.price_per_gpu_hour", "2.5"}, {"hardware.gpu", "H100"}},
      {{"model.mhc.n", "4"}, {"precision.kv_cache", "fp8"}},
      {{"parallel.pp", "4"}, {"parallel.pp", "2"}},  // the later one wins
  };
  for (const auto& o : cases) {
    INFO(file << " with " << o.size() << " overrides");
    const std::string direct = error_of([&] { scenarios::load_scenario_from_string(text, file, o); });
    const std::string fast = error_of([&] { tpl.instantiate(o); });
    CHECK(fast == direct);
    if (direct.empty())
      CHECK(scenarios::to_json(tpl.instantiate(o)) ==
            scenarios::to_json(scenarios::load_scenario_from_string(text, file, o)));
  }
}

TEST_CASE("template errors name the key, as the loader's do") {
  const std::string file = "deepseek_v3_train.toml", text = scenario_text(file);
  scenarios::ScenarioTemplate tpl(text, file, {{"parallel.micro_batches", "64"}});
  for (const std::vector<Override>& o :
       std::vector<std::vector<Override>>{{{"parallel.pp", "7"}},         // DualPipe needs even PP
                                          {{"parallel.ep", "512"}},       // more than the routed experts
                                          {{"parallel.pp", "\"x\""}},     // wrong type
                                          {{"parallel.tp", "0"}},         // out of range
                                          {{"workload.mode", "fly"}}}) {  // bare word -> string -> not an enum value
    std::vector<Override> all = {{"parallel.micro_batches", "64"}};
    all.insert(all.end(), o.begin(), o.end());
    const std::string direct = error_of([&] { scenarios::load_scenario_from_string(text, file, all); });
    CHECK_FALSE(direct.empty());
    CHECK(error_of([&] { tpl.instantiate(o); }) == direct);
  }
  CHECK_THROWS_WITH(tpl.prepare({"parallel.ppp", "8"}), Catch::Contains("unknown key"));
  CHECK_THROWS_AS(scenarios::ScenarioTemplate("name = ", "bad.toml"), InputError);
}
