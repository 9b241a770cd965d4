#pragma once
// A schema of typed TOML fields: each knows its dotted key, what it expects, and how to store
// a validated value into a target struct. The scenario file and the hardware catalog are both
// read through it, so every key gets the same `file:line: key: reason (expected ...)` errors.
#include <toml++/toml.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "mhcsim/error.h"

namespace mhcsim::scenarios {

SourceLocation location_of(const toml::node& node, const std::string& fallback_file);

template <class T>
struct Field {
  std::string key;       // dotted, e.g. "parallel.pp"
  std::string expected;  // e.g. "integer in [1, 4096]"
  bool required = false;
  std::function<void(T&, const toml::node&, const SourceLocation&)> store;
  // Whether the value can be judged without the rest of the file: numbers, booleans and
  // enumerations (type and range), not strings, which may name a GPU of a catalog the file
  // points to or a path relative to it.
  bool standalone = false;
};

std::string_view type_name(const toml::node& node);

template <class T>
std::string type_error(const Field<T>& f, const toml::node& node) {
  return fmt::format("expected {} (got {})", f.expected, type_name(node));
}

// `ref` is any callable T& -> integer& (int or int64_t).
template <class T, class Ref>
Field<T> int_field(std::string key, int64_t lo, int64_t hi, Ref ref, bool required = false) {
  Field<T> f{std::move(key), fmt::format("integer in [{}, {}]", lo, hi), required, {}, true};
  f.store = [f, lo, hi, ref](T& t, const toml::node& node, const SourceLocation& where) {
    const auto v = node.value_exact<int64_t>();
    if (!v) throw InputError(f.key, type_error(f, node), where);
    if (*v < lo || *v > hi)
      throw InputError(f.key, fmt::format("{} is out of range (expected {})", *v, f.expected), where);
    ref(t) = static_cast<std::remove_reference_t<decltype(ref(t))>>(*v);
  };
  return f;
}

// The node as a finite double; an integer is accepted too (`overlap = 1`).
template <class T>
double finite_number(const Field<T>& f, const toml::node& node, const SourceLocation& where) {
  std::optional<double> v;
  if (const auto i = node.value_exact<int64_t>())
    v = static_cast<double>(*i);
  else
    v = node.value_exact<double>();
  if (!v) throw InputError(f.key, type_error(f, node), where);
  if (!std::isfinite(*v))
    throw InputError(f.key, fmt::format("{} is not a finite number (expected {})", *v, f.expected), where);
  return *v + 0.0;  // -0.0 + 0.0 is +0.0: a `-0.0` in the file must not print as -0.0 GPU-hours
}

template <class T>
Field<T> float_field(std::string key, double lo, double hi, std::function<double&(T&)> ref, bool required = false) {
  Field<T> f{std::move(key), fmt::format("number in [{}, {}]", lo, hi), required, {}, true};
  f.store = [f, lo, hi, ref](T& t, const toml::node& node, const SourceLocation& where) {
    const double v = finite_number(f, node, where);
    if (v < lo || v > hi)
      throw InputError(f.key, fmt::format("{} is out of range (expected {})", v, f.expected), where);
    ref(t) = v;
  };
  return f;
}

// A measured quantity: no upper bound, strictly positive (a [lo, hi] range cannot say "> 0").
// `set` also gets the value's location, for values that keep their line (published figures).
template <class T>
Field<T> positive_field(std::string key, std::function<void(T&, double, const SourceLocation&)> set) {
  Field<T> f{std::move(key), "a finite number > 0", false, {}, true};
  f.store = [f, set](T& t, const toml::node& node, const SourceLocation& where) {
    const double v = finite_number(f, node, where);
    if (!(v > 0)) throw InputError(f.key, fmt::format("{} is not > 0 (expected {})", v, f.expected), where);
    set(t, v, where);
  };
  return f;
}

template <class T>
Field<T> bool_field(std::string key, std::function<bool&(T&)> ref) {
  Field<T> f{std::move(key), "true or false", false, {}, true};
  f.store = [f, ref](T& t, const toml::node& node, const SourceLocation& where) {
    const auto v = node.value_exact<bool>();
    if (!v) throw InputError(f.key, type_error(f, node), where);
    ref(t) = *v;
  };
  return f;
}

// `check` may reject a string (returns the reason) after the type check.
template <class T>
Field<T> string_field(std::string key, std::function<void(T&, std::string)> set, bool required = false) {
  Field<T> f{std::move(key), "a string", required, {}};
  f.store = [f, set](T& t, const toml::node& node, const SourceLocation& where) {
    const auto v = node.value_exact<std::string>();
    if (!v) throw InputError(f.key, type_error(f, node), where);
    try {
      set(t, *v);
    } catch (const InputError& e) {  // re-anchor errors raised by the setter at this key
      throw InputError(f.key, e.reason(), where);
    }
  };
  return f;
}

template <class T, class E>
Field<T> enum_field(std::string key, std::string choices, std::optional<E> (*parse)(std::string_view),
                    std::function<E&(T&)> ref, bool required = false) {
  Field<T> f{std::move(key), "one of " + choices, required, {}, true};
  f.store = [f, parse, ref](T& t, const toml::node& node, const SourceLocation& where) {
    const auto v = node.value_exact<std::string>();
    if (!v) throw InputError(f.key, type_error(f, node), where);
    const auto e = parse(*v);
    if (!e) throw InputError(f.key, fmt::format("'{}' is not valid (expected {})", *v, f.expected), where);
    ref(t) = *e;
  };
  return f;
}

// Closest known key, for "did you mean" hints on typos.
std::string closest_key(std::string_view key, const std::vector<std::string>& known);

// Walks every leaf of `root`; unknown keys and tables are errors. Then stores each field's
// value in schema order; missing required fields are errors at the parent table's line.
// `seen` receives the location of every key and known table present (for cross-key checks,
// and to anchor errors about a key missing from a table at that table).
template <class T>
void apply_fields(T& target, const toml::table& root, const std::vector<Field<T>>& schema, const std::string& file,
                  const std::string& prefix, std::function<void(const std::string&, const SourceLocation&)> seen = {});

}  // namespace mhcsim::scenarios

#include "fields_impl.h"
