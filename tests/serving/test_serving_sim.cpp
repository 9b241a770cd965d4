// The request-level serving simulator: exact timestamps for requests served alone, conservation,
// Little's law at low load, the knee past capacity, preemption, disaggregation, bounded memory,
// the KV check, and the trace.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "mhcsim/error.h"
#include "mhcsim/serving/simulate.h"
#include "scenarios.h"
#include "temp_file.h"

using namespace mhcsim;
using namespace mhcsim::serving;
using Catch::Matchers::WithinRel;

namespace {
const Deployment& deepseek() {
  static const Deployment d(test::deepseek_serve());
  return d;
}
LengthDistribution fixed(double tokens) { return {LengthDistribution::Kind::Fixed, tokens}; }
LengthDistribution exponential(double tokens) { return {LengthDistribution::Kind::Exponential, tokens}; }

ServingResult poisson(const Deployment& d, double rate, int64_t n, double in, double out, ServingConfig c = {},
                      uint64_t seed = 7) {
  PoissonSource source(rate, n, fixed(in), fixed(out), seed);
  return simulate(d, c, source);
}

// Requests/s one replica sustains, roughly: each request's prompt at the rate of full
// token-budget prefill chunks plus its output at the rate of full decode batches.
double capacity_per_s(const Deployment& d, double in, double out) {
  const auto& m = d.model();
  const double seqs = static_cast<double>(d.scenario().workload.batch_seqs);
  cost::BatchShape decode;
  decode.decode_seqs = decode.sampled_seqs = seqs;
  decode.decode_context_tokens = seqs * (in + out / 2);
  cost::BatchShape chunk;
  chunk.prefill_tokens = 2048;
  chunk.prefill_attended_tokens = 2048 * (in / 2 + 1024);
  const double per_request = in * m.seconds(chunk) / 2048 + out * m.seconds(decode) / seqs;
  return 1.0 / per_request;
}
}  // namespace

TEST_CASE("a request served alone takes exactly the step model's iterations") {
  // Arrivals 100 s apart: each request has the replica to itself. 1,000 prompt tokens fit the
  // 2,048-token budget: one prefill iteration gives the first token, then one decode iteration
  // per further token, over a context that grows by one each time.
  const test::TempFile file("alone.csv", "arrival_s,input_tokens,output_tokens\n0,1000,5\n100,1000,5\n200,1000,5\n");
  RequestFile source(file.path());
  const auto r = simulate(deepseek(), {}, source);
  const auto& m = deepseek().model();
  cost::BatchShape p;
  p.prefill_tokens = 1000;
  p.prefill_attended_tokens = 1000.0 * 1001 / 2;
  p.sampled_seqs = 1;
  const double ttft = m.seconds(p);
  double decode = 0;
  for (int k = 1; k < 5; ++k) {
    cost::BatchShape b;
    b.decode_seqs = b.sampled_seqs = 1;
    b.decode_context_tokens = 1000 + k;
    decode += m.seconds(b);
  }
  CHECK(r.requests == 3);
  CHECK(r.iterations == 15);
  CHECK_THAT(r.ttft.mean_s, WithinRel(ttft, 1e-12));
  CHECK_THAT(r.e2e.mean_s, WithinRel(ttft + decode, 1e-12));
  CHECK_THAT(r.tpot.mean_s, WithinRel(decode / 4, 1e-12));
  CHECK_THAT(r.duration_s, WithinRel(200 + ttft + decode, 1e-12));
}

TEST_CASE("chunked prefill: a long prompt is split into token-budget chunks") {
  const test::TempFile file("long.csv", "arrival_s,input_tokens,output_tokens\n0,5000,1\n");
  RequestFile source(file.path());
  const auto r = simulate(deepseek(), {}, source);
  const auto& m = deepseek().model();
  double expected = 0;
  for (const auto& [start, chunk] : {std::pair{0.0, 2048.0}, {2048.0, 2048.0}, {4096.0, 904.0}}) {
    cost::BatchShape b;
    b.prefill_tokens = chunk;
    b.prefill_attended_tokens = chunk * start + chunk * (chunk + 1) / 2;
    b.sampled_seqs = start + chunk >= 5000 ? 1 : 0;
    expected += m.seconds(b);
  }
  CHECK(r.iterations == 3);
  CHECK_THAT(r.ttft.mean_s, WithinRel(expected, 1e-12));
}

TEST_CASE("conservation: every request finishes and every token is counted") {
  const auto lengths = GENERATE(as<int>{}, 0, 1);
  PoissonSource source(3.0, 2000, lengths ? exponential(800) : fixed(800), lengths ? exponential(200) : fixed(200), 11);
  PoissonSource replay(3.0, 2000, lengths ? exponential(800) : fixed(800), lengths ? exponential(200) : fixed(200), 11);
  double in = 0, out = 0;
  while (auto q = replay.next())
    in += static_cast<double>(q->input_tokens), out += static_cast<double>(q->output_tokens);
  ServingConfig c;
  c.replicas = 2;
  const auto r = simulate(deepseek(), c, source);
  CHECK(r.requests == 2000);
  CHECK(r.input_tokens == in);
  CHECK(r.output_tokens == out);
  CHECK(r.ttft.p50_s <= r.ttft.p99_s);
  CHECK(r.e2e.p99_s >= r.ttft.p99_s);
}

TEST_CASE("a seed gives the same run") {
  const auto a = poisson(deepseek(), 2.5, 1500, 700, 150);
  const auto b = poisson(deepseek(), 2.5, 1500, 700, 150);
  CHECK(a.iterations == b.iterations);
  CHECK(a.ttft.p99_s == b.ttft.p99_s);
  CHECK(a.e2e.mean_s == b.e2e.mean_s);
  CHECK(poisson(deepseek(), 2.5, 1500, 700, 150, {}, 8).e2e.mean_s != a.e2e.mean_s);
}

TEST_CASE("Little's law at low load: requests in the system = arrival rate x time in it") {
  const double rate = 0.3 * capacity_per_s(deepseek(), 800, 200);
  const auto r = poisson(deepseek(), rate, 4000, 800, 200);
  CHECK_THAT(r.mean_requests_in_system, WithinRel(r.arrival_rate_per_s * r.e2e.mean_s, 0.02));
  CHECK_THAT(r.mean_requests_in_system, WithinRel(rate * r.e2e.mean_s, 0.06));
  CHECK(std::isnan(r.slo_attainment));  // no SLO given: nothing to meet, none (not 100%)
  CHECK(std::isnan(r.goodput_per_s));
  ServingConfig c;
  c.slo_ttft_s = 1e6;  // one every request meets
  const auto all = poisson(deepseek(), rate, 4000, 800, 200, c);
  CHECK(all.slo_attainment == 1.0);
  CHECK_THAT(all.goodput_per_s, WithinRel(all.arrival_rate_per_s, 0.02));
}

TEST_CASE("a request file's arrival rate: n - 1 gaps over its span; none for a burst") {
  test::TempFile spread("spread.csv", "arrival_s,input_tokens,output_tokens\n0,100,10\n0.5,100,10\n1,100,10\n");
  RequestFile three(spread.path());
  CHECK(simulate(deepseek(), {}, three).arrival_rate_per_s == 2.0);
  test::TempFile burst("burst.csv", "arrival_s,input_tokens,output_tokens\n0,100,10\n0,100,10\n0,100,10\n");
  RequestFile at_once(burst.path());
  const auto r = simulate(deepseek(), {}, at_once);
  CHECK(std::isnan(r.arrival_rate_per_s));
  CHECK(std::isnan(r.rate_per_s));
  CHECK(r.requests == 3);
}

TEST_CASE("the knee: past capacity p99 latency grows with the run, below it it does not") {
  const double capacity = capacity_per_s(deepseek(), 1000, 200);
  const auto p99 = [&](double rate, int64_t n) { return poisson(deepseek(), rate, n, 1000, 200).ttft.p99_s; };
  const double below_short = p99(0.3 * capacity, 1000), below_long = p99(0.3 * capacity, 4000);
  const double above_short = p99(2.5 * capacity, 1000), above_long = p99(2.5 * capacity, 4000);
  CHECK(below_long < 1.5 * below_short);
  CHECK(above_long > 3.0 * above_short);  // a queue growing linearly with the requests
  CHECK(above_short > 10 * below_short);
}

TEST_CASE("KV cache full: recompute preemption, and still every request finishes") {
  ServingConfig c;
  c.scheduler.max_batch_seqs = 256;  // 256 x 8k tokens is far past one GPU's cache
  const auto r = poisson(deepseek(), 20.0, 300, 6000, 2000, c);
  CHECK(r.preemptions > 0);
  CHECK(r.requests == 300);
  CHECK(r.output_tokens == 300.0 * 2000);
  CHECK(r.kv_utilisation_max <= 1.0);
  CHECK(r.kv_utilisation_max > 0.9);
}

TEST_CASE("prefix-cache hits take blocks but no prefill compute") {
  ServingConfig hits;
  hits.prefix_hit_ratio = 0.5;
  const auto cold = poisson(deepseek(), 0.05, 50, 2000, 2);
  const auto warm = poisson(deepseek(), 0.05, 50, 2000, 2, hits);
  CHECK(warm.ttft.mean_s < 0.7 * cold.ttft.mean_s);
  CHECK(warm.prefix_hit_tokens == 50.0 * 1000);
  CHECK(warm.input_tokens == cold.input_tokens);
}

TEST_CASE("prefill/decode disaggregation: KV moves to the decode pool, decodes run undisturbed") {
  ServingConfig colocated;
  colocated.replicas = 3;
  ServingConfig split;
  split.replicas = 2;
  split.prefill_replicas = 1;
  const double rate = 2.0;
  const auto a = poisson(deepseek(), rate, 1500, 2000, 200, colocated);
  const auto b = poisson(deepseek(), rate, 1500, 2000, 200, split);
  CHECK(b.requests == 1500);
  CHECK(b.output_tokens == 1500.0 * 200);
  CHECK(b.gpus == 3);
  // Decode iterations carry no prefill chunks: the time between tokens is shorter.
  CHECK(b.tpot.p50_s < a.tpot.p50_s);
  // The KV transfer is priced: one prompt's KV over one GPU's NIC.
  CHECK(deepseek().kv_transfer_seconds(2000) > 0);
}

// 64 prompts prefilled at once on 64 replicas all go to one decode replica: its NIC takes the
// transfers one after another (they all landed within one transfer's time, 64 x the NIC).
TEST_CASE("KV transfers queue on the NICs they share") {
  std::string csv = "arrival_s,input_tokens,output_tokens\n";
  for (int i = 0; i < 64; ++i) csv += "0,4000,2\n";
  const test::TempFile file("burst.csv", csv);
  const auto run = [&](int64_t decode_replicas) {
    ServingConfig split;
    split.replicas = decode_replicas;
    split.prefill_replicas = 64;
    RequestFile source(file.path());
    return simulate(deepseek(), split, source);
  };
  const double one = deepseek().kv_transfer_seconds(4000);
  const auto narrow = run(1), wide = run(64);
  // Through one NIC the last KV lands 63 transfers after the first; over 64 they land together.
  CHECK(narrow.e2e.p99_s - narrow.ttft.p99_s >= 63 * one);
  CHECK(wide.e2e.p99_s - wide.ttft.p99_s < 4 * one + 1.0);
}

TEST_CASE("disaggregated KV use is the decode pool's: idle prefill caches do not hide a full one") {
  ServingConfig split;
  split.replicas = 1;
  split.prefill_replicas = 8;  // their caches empty as soon as each prompt is sent
  const auto r = poisson(deepseek(), 20.0, 600, 4000, 4000, split);
  CHECK(r.preemptions > 0);           // the decode replica ran out of blocks...
  CHECK(r.kv_utilisation_max > 0.9);  // ...and says so (over all nine caches: 0.11)
}

TEST_CASE("memory follows the requests in flight, not the requests served") {
  const auto r = poisson(deepseek(), 0.3 * capacity_per_s(deepseek(), 400, 64), 30000, 400, 64);
  CHECK(r.requests == 30000);
  CHECK(r.max_requests_in_flight < 300);
  CHECK(r.kv_utilisation_series.size() <= 2 * kKvSeriesPoints);
  CHECK(r.kv_utilisation_series.size() >= kKvSeriesPoints / 2);
}

TEST_CASE("routers: round-robin and least-loaded both serve everything") {
  const auto router = GENERATE(RouterKind::RoundRobin, RouterKind::LeastLoaded);
  ServingConfig c;
  c.replicas = 4;
  c.router = router;
  const auto r = poisson(deepseek(), 6.0, 2000, 800, 100, c);
  CHECK(r.requests == 2000);
  CHECK(r.gpus == 4);
}

// Colocated, a replica holds a few queued prompts beside many long decodes. Counting requests
// sent new prompts behind each other's prefill: 8 replicas at 4 requests/s of 4,989 in / 256
// out had p99 TTFT 4.34 s under least-loaded against 1.49 s round-robin (a probe). It weighs the
// prompt tokens still to prefill first.
TEST_CASE("least-loaded routes by the prefill backlog: never behind round-robin on TTFT") {
  ServingConfig c;
  c.replicas = 8;
  c.router = RouterKind::RoundRobin;
  const auto rr = poisson(deepseek(), 4.0, 1000, 4989, 256, c);
  c.router = RouterKind::LeastLoaded;
  const auto ll = poisson(deepseek(), 4.0, 1000, 4989, 256, c);
  CHECK(ll.requests == 1000);
  CHECK(ll.ttft.p99_s <= 1.05 * rr.ttft.p99_s);
  CHECK(ll.ttft.p99_s < 2.0);
}

TEST_CASE("cost: GPU time at the catalog price, split between prefill and decode") {
  const auto r = poisson(deepseek(), 1.0, 500, 1000, 200);
  CHECK_THAT(r.cost_usd, WithinRel(r.duration_s / 3600.0 * 2.0, 1e-12));  // H800 at $2 per GPU-hour
  CHECK(r.cost_per_million_input_usd > 0);
  CHECK(r.cost_per_million_output_usd > 0);
  const double spent =
      r.cost_per_million_input_usd * r.input_tokens / 1e6 + r.cost_per_million_output_usd * r.output_tokens / 1e6;
  CHECK_THAT(spent, WithinRel(r.cost_usd, 1e-9));
}

TEST_CASE("cost and nodes: a prefill pool on another GPU is paid and counted at its own price and servers") {
  // Prefill on GB200 ($5 per GPU-hour, 4-GPU trays), decode on H800 ($2, 8-GPU servers).
  static const Deployment gb200(test::deepseek_serve({{"hardware.gpu", "GB200"}}));
  ServingConfig split;
  split.replicas = 2;
  split.prefill_replicas = 2;
  PoissonSource source(1.0, 400, fixed(2000), fixed(100), 1);
  const auto r = simulate(deepseek(), split, source, &gb200);
  CHECK_THAT(r.cost_usd, WithinRel(r.duration_s / 3600.0 * (2 * 5.0 + 2 * 2.0), 1e-12));
  // Half a tray and a quarter of a server hold the run's GPUs.
  CHECK_THAT(r.output_tokens_per_s_per_node, WithinRel(r.output_tokens / r.duration_s / (2.0 / 4 + 2.0 / 8), 1e-12));
  const double spent =
      r.cost_per_million_input_usd * r.input_tokens / 1e6 + r.cost_per_million_output_usd * r.output_tokens / 1e6;
  CHECK_THAT(spent, WithinRel(r.cost_usd, 1e-9));
  // The same run with the prefill GPUs at the decode ones' price: the same times, and the busy
  // time's split weighs the pools by their prices, so the prefill share falls with its price.
  static const Deployment cheap(
      test::deepseek_serve({{"hardware.gpu", "GB200"}, {"hardware.price_per_gpu_hour", "2"}}));
  PoissonSource again(1.0, 400, fixed(2000), fixed(100), 1);
  const auto c = simulate(deepseek(), split, again, &cheap);
  REQUIRE(c.duration_s == r.duration_s);
  const double total = r.cost_usd / c.cost_usd;  // 14 / 8
  CHECK(r.cost_per_million_input_usd / c.cost_per_million_input_usd > total);
  CHECK(r.cost_per_million_output_usd / c.cost_per_million_output_usd < total);
}

TEST_CASE("a KV cache too small for one request is an error naming where") {
  SECTION("generated requests: the scenario") {
    PoissonSource source(1.0, 10, fixed(2'000'000), fixed(10), 1);
    CHECK_THROWS_WITH(simulate(deepseek(), {}, source),
                      Catch::Contains("deepseek_v3_serve.toml: hardware.gpu: a request of 2000010 tokens needs"));
  }
  SECTION("a request file: its line") {
    const test::TempFile file("big.csv", "arrival_s,input_tokens,output_tokens\n0,100,10\n1,3000000,10\n");
    RequestFile source(file.path());
    CHECK_THROWS_WITH(simulate(deepseek(), {}, source), Catch::Contains(file.str() + ":3: input_tokens: a request of"));
  }
}

TEST_CASE("Chrome trace: one complete event per iteration of the traced replicas, KV and batch counters") {
  std::ostringstream out;
  ServingConfig c;
  c.replicas = 2;
  c.trace = &out;
  PoissonSource source(2.0, 200, fixed(500), fixed(50), 3);
  const auto r = simulate(deepseek(), c, source);
  const auto doc = nlohmann::json::parse(out.str());
  int64_t complete = 0, names = 0, kv = 0, batch = 0;
  int64_t most_blocks = 0;
  for (const auto& e : doc["traceEvents"]) {
    complete += e["ph"] == "X";
    names += e["ph"] == "M";
    if (e["ph"] != "C") continue;
    if (e["name"] == "KV cache blocks used") {
      ++kv;
      most_blocks = std::max(most_blocks, e["args"]["blocks"].get<int64_t>());
    }
    batch += e["name"] == "batch";
  }
  CHECK(complete == r.iterations);
  CHECK(names == 2);
  // One of each counter per iteration; the KV track shows the cache in use.
  CHECK(kv == r.iterations);
  CHECK(batch == r.iterations);
  CHECK(most_blocks > 0);
  CHECK_FALSE(r.trace_stopped_at_s);
}

TEST_CASE("Chrome trace: its size limit stops the trace, whole and marked, and not the run") {
  std::ostringstream out;
  ServingConfig c;
  c.trace = &out;
  c.trace_max_bytes = 20'000;
  PoissonSource source(2.0, 200, fixed(500), fixed(50), 3);
  const auto r = simulate(deepseek(), c, source);
  CHECK(r.requests == 200);
  REQUIRE(r.trace_stopped_at_s);
  CHECK(*r.trace_stopped_at_s > 0);
  CHECK(*r.trace_stopped_at_s < r.duration_s);
  CHECK(out.str().size() <= 20'000 + 200);            // the marker may pass the limit, nothing else
  const auto doc = nlohmann::json::parse(out.str());  // closed: it parses
  const auto& last = doc["traceEvents"].back();
  CHECK(last["name"] == "trace stopped at its size limit");
  CHECK(last["ts"].get<double>() == Approx(*r.trace_stopped_at_s * 1e6));
}

TEST_CASE("bad configurations are errors naming the option") {
  ServingConfig c;
  c.replicas = 0;
  PoissonSource source(1.0, 10, fixed(100), fixed(10), 1);
  CHECK_THROWS_WITH(simulate(deepseek(), c, source), Catch::Contains("--replicas"));
  c = {};
  c.prefix_hit_ratio = 1.0;
  CHECK_THROWS_WITH(simulate(deepseek(), c, source), Catch::Contains("--prefix-hit"));
  CHECK_THROWS_WITH(PoissonSource(0.0, 10, fixed(100), fixed(10), 1), Catch::Contains("--rate"));
  CHECK_THROWS_WITH(PoissonSource(-1.0, 10, fixed(100), fixed(10), 1), Catch::Contains("--rate"));
}
