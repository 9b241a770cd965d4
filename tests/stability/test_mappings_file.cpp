// Issue 19: mappings files (JSON or .npy, L x n x n) and their one-line errors.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "mhcsim/error.h"
#include "mhcsim/stability/mappings_file.h"

using namespace mhcsim;
using namespace mhcsim::stability;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

namespace {

// A .npy file of format 1.0: magic, version, little-endian header length, dict, data.
template <class T>
std::string npy(const std::string& descr, const std::string& shape, const std::vector<T>& data,
                const std::string& order = "False") {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': " + order + ", 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  std::string bytes(data.size() * sizeof(T), '\0');
  if (!data.empty()) std::memcpy(bytes.data(), data.data(), bytes.size());  // memcpy of nullptr is UB even for 0 bytes
  return out + bytes;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("mappings file: JSON L x n x n", "[stability][mappings]") {
  const auto m = parse_mappings_json("[[[1, 0.5], [0, 1]], [[2, 0], [0.25, -1e-3]]]", "m.json");
  CHECK(m.n == 2);
  CHECK(m.layers == 2);
  CHECK(m.values == std::vector<double>{1, 0.5, 0, 1, 2, 0, 0.25, -1e-3});

  CHECK_THAT(error_of([] { parse_mappings_json("[[[1, 0], [0, 1]], [[1, 0], [0, \"x\"]]]", "m.json"); }),
             Equals("m.json: element [1][1][1]: expected a number, got string"));
  CHECK_THAT(error_of([] { parse_mappings_json("[[[1, 0], [0, 1]], [[1, 0]]]", "m.json"); }),
             Equals("m.json: element [1]: 1 rows, expected 2 (n from element [0])"));
  CHECK_THAT(error_of([] { parse_mappings_json("[[[1, 0], [0, 1, 2]]]", "m.json"); }),
             Equals("m.json: element [0][1]: 3 values, expected 2 (a square n x n matrix)"));
  CHECK_THAT(error_of([] { parse_mappings_json("[[[1, 0], 7]]", "m.json"); }),
             Equals("m.json: element [0][1]: expected an array of 2 numbers, got number"));
  CHECK_THAT(error_of([] { parse_mappings_json("[[[1e400]]]", "m.json"); }),
             Equals("m.json: malformed JSON: a number overflows float64 (expected finite numbers)"));
  // Finite in float64 but not in the fp32 the projections run in.
  CHECK_THAT(error_of([] { parse_mappings_json("[[[1, 0], [0, -1e39]]]", "m.json"); }),
             Equals("m.json: element [0][1][1]: -1e+39 is out of float32's range (|x| <= 3.40282e+38)"));
  CHECK_THAT(error_of([] { parse_mappings_json("{\"a\": 1}", "m.json"); }),
             Equals("m.json: top level: expected an array of L matrices (L x n x n), got object"));
  CHECK_THAT(error_of([] { parse_mappings_json("[]", "m.json"); }), Contains("m.json: top level: no matrices"));
  CHECK_THAT(error_of([] { parse_mappings_json("[[]]", "m.json"); }), Contains("m.json: element [0]: empty matrix"));
  CHECK_THAT(error_of([] { parse_mappings_json("[[[1, 0], [0, 1]", "m.json"); }),
             Contains("m.json: malformed JSON: parse error at line 1, column 17"));
}

TEST_CASE("mappings file: .npy float32 and float64", "[stability][mappings]") {
  const std::vector<double> d = {1, 2, 3, 4, 5, 6, 7, 8};
  const auto m = parse_mappings_npy(npy("<f8", "(2, 2, 2)", d), "m.npy");
  CHECK(m.n == 2);
  CHECK(m.layers == 2);
  CHECK(m.values == d);
  const auto f = parse_mappings_npy(npy<float>("<f4", "(1, 3, 3)", {1, 0, 0, 0, 1, 0, 0, 0, 0.5f}), "m.npy");
  CHECK(f.n == 3);
  CHECK(f.values[8] == 0.5);

  const double nan = std::nan("");
  CHECK_THAT(error_of([&] {
               parse_mappings_npy(npy<double>("<f8", "(2, 2, 2)", {1, 2, 3, 4, 5, nan, 7, 8}), "m.npy");
             }),
             Equals("m.npy: element [1][0][1]: nan is not a finite number"));
  CHECK_THAT(error_of([&] {
               parse_mappings_npy(npy("<f8", "(2, 2, 2)", std::vector<double>{1, 2, 3}), "m.npy");
             }),
             Equals("m.npy: data: 24 bytes, expected 64 for shape (2, 2, 2) of float64"));
  CHECK_THAT(error_of([&] { parse_mappings_npy(npy(">f8", "(2, 2, 2)", d), "m.npy"); }),
             Contains("m.npy: header: descr \">f8\" is not supported"));
  CHECK_THAT(error_of([&] { parse_mappings_npy(npy("<f8", "(2, 4)", d), "m.npy"); }),
             Equals("m.npy: header: shape (2, 4) is not (L, n, n)"));
  CHECK_THAT(error_of([&] { parse_mappings_npy(npy("<f8", "(2, 2, 2)", d, "True"), "m.npy"); }),
             Contains("m.npy: header: fortran_order is not False"));
  CHECK_THAT(error_of([&] { parse_mappings_npy(npy("<i8", "(1, 1, 1)", std::vector<int64_t>{1}), "m.npy"); }),
             Contains("m.npy: header: descr \"<i8\" is not supported"));
  CHECK_THAT(error_of([&] { parse_mappings_npy(std::string("\x93NUMPY\x01\x00\xff\x00{", 11), "m.npy"); }),
             Contains("m.npy: header: header of 255 bytes runs past the end of the file"));
  CHECK_THAT(error_of([&] { parse_mappings_npy(npy("<f8", "(0, 2, 2)", std::vector<double>{}), "m.npy"); }),
             Contains("m.npy: header: no matrices"));
}
