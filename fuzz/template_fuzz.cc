// The template renderer and `when` expressions on arbitrary text, rendered
// against a context with every kind of value (in each of the formats).
#include <cstddef>
#include <cstdint>
#include <string>

#include "controller/catalog/template.h"
#include "controller/catalog/when.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const nlohmann::json context = {
      {"name", "gpu01"},  {"count", 8},   {"ratio", 0.5},        {"on", true},  {"none", nullptr},
      {"list", {"a", "b"}}, {"map", {{"k", "v"}, {"n", 1}}},     {"text", "line\nbreak"},
      {"host", {{"name", "gpu01"}, {"facts", {{"cpu", {{"cpus", 64}}}}}}},
  };
  const auto format = static_cast<clusterctl::Template::Format>(data[0] % 3);
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  clusterctl::Diagnostics diagnostics;
  if (auto t = clusterctl::Template::Parse(text, "fuzz.mustache", diagnostics, 1, 1, format)) {
    (void)t->Render(context, diagnostics);
    (void)t->CheckedSlots();
  }
  (void)clusterctl::RenderStrings(nlohmann::json(text), {&context}, {"fuzz", 1, 1}, diagnostics);
  if (auto when = clusterctl::WhenExpression::Parse(text); when.ok()) (void)when->Evaluate(context);
  return 0;
}
