#include "controller/validate/mpi_ring.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "common/strings.h"
#include "controller/validate/check_result.h"

namespace clusterctl {
namespace {

constexpr const char* kCheck = "mpi.cluster";

// "key=value key=value" after the line's tag; nullopt when a word has no '='
// or a key repeats.
std::optional<std::map<std::string, std::string>> Fields(std::string_view rest) {
  std::map<std::string, std::string> fields;
  for (const std::string& word : Split(std::string(Trim(rest)), ' ')) {
    if (word.empty()) continue;
    size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0) return std::nullopt;
    if (!fields.emplace(word.substr(0, eq), word.substr(eq + 1)).second) return std::nullopt;
  }
  return fields;
}

std::optional<double> NonNegative(const std::string& text) {
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(value) || value < 0) return std::nullopt;
  return value;
}

Status Malformed(const std::string& line) {
  return Status::InvalidArgument("unreadable line from the MPI test program: " + Printable(line, 120));
}

Status ReadRingOk(const std::map<std::string, std::string>& f, const std::string& line, MpiRingReport& report) {
  auto ranks = f.count("ranks") ? NonNegative(f.at("ranks")) : std::nullopt;
  if (!ranks || *ranks != std::floor(*ranks) || *ranks < 1 || *ranks > 1e6 || !f.count("nodes")) return Malformed(line);
  report.ranks = static_cast<int>(*ranks);
  report.nodes = Split(f.at("nodes"), ',');
  if (static_cast<int>(report.nodes.size()) != report.ranks) return Malformed(line);
  report.ring_ok = true;
  return Status::Ok();
}

Status ReadPingPong(const std::map<std::string, std::string>& f, const std::string& line, MpiRingReport& report) {
  auto latency = f.count("latency_us") ? NonNegative(f.at("latency_us")) : std::nullopt;
  auto bandwidth = f.count("bandwidth_mbps") ? NonNegative(f.at("bandwidth_mbps")) : std::nullopt;
  if (!latency || !bandwidth || !f.count("between")) return Malformed(line);
  report.latency_us = latency;
  report.bandwidth_mbps = bandwidth;
  report.between = Split(f.at("between"), ',');
  return Status::Ok();
}

}  // namespace

Result<MpiRingReport> ParseMpiRing(std::string_view text) {
  MpiRingReport report;
  bool ring_line = false;
  for (const std::string& raw : Split(std::string(text), '\n')) {
    const std::string line(Trim(raw));
    const bool ring = StartsWith(line, "ring:"), pingpong = StartsWith(line, "pingpong:");
    if (!ring && !pingpong) continue;
    if (ring && StartsWith(std::string_view(line).substr(5), " FAILED")) {
      report.ring_failures.push_back(Printable(line, 120));
      ring_line = true;
      continue;
    }
    std::string_view rest = std::string_view(line).substr(ring ? 5 : 9);
    if (ring) {
      if (!StartsWith(rest, " ok ")) return Malformed(line);
      rest.remove_prefix(3);
    }
    std::optional<std::map<std::string, std::string>> fields = Fields(rest);
    if (!fields) return Malformed(line);
    Status read = ring ? ReadRingOk(*fields, line, report) : ReadPingPong(*fields, line, report);
    if (!read.ok()) return read;
    ring_line = ring_line || ring;
  }
  if (!ring_line) return Status::InvalidArgument("no ring line from the MPI test program");
  if (!report.ring_failures.empty()) report.ring_ok = false;
  return report;
}

CheckResult EvaluateMpiRing(const std::string& subject, const std::vector<std::string>& nodes, const ToolOutput& output,
                            const MpiLimits& limits) {
  const std::string across = Join(nodes, ",");
  if (!output.Succeeded()) {
    return Fail(kCheck, CheckScope::kCluster, subject, "the MPI job across " + across + " failed (" + ExitDescription(output) + ")",
                CauseEvidence(output.Both()));
  }
  Result<MpiRingReport> parsed = ParseMpiRing(output.out);
  if (!parsed.ok()) {
    return Fail(kCheck, CheckScope::kCluster, subject, parsed.status().message(), TailLines(output.Both()));
  }
  const MpiRingReport& r = *parsed;
  if (!r.ring_ok) {
    return Fail(kCheck, CheckScope::kCluster, subject, "the ring across " + across + " passed wrong values", r.ring_failures);
  }
  if (r.ranks != static_cast<int>(nodes.size()) || std::set<std::string>(r.nodes.begin(), r.nodes.end()) !=
                                                       std::set<std::string>(nodes.begin(), nodes.end())) {
    return Fail(kCheck, CheckScope::kCluster, subject,
                "the job ran " + std::to_string(r.ranks) + " ranks on " + Printable(Join(r.nodes, ","), 120) +
                    ", not one on each of " + across);
  }
  if (!r.latency_us || !r.bandwidth_mbps) {
    return Fail(kCheck, CheckScope::kCluster, subject, "the MPI test program printed no ping-pong line", TailLines(output.Both()));
  }
  const std::string measured = FormatNumber(*r.latency_us) + " us, " + FormatNumber(*r.bandwidth_mbps) + " MB/s";
  const std::string threshold = "<= " + FormatNumber(limits.latency_max_us) + " us" +
                                (limits.bandwidth_min_mbps ? ", >= " + FormatNumber(*limits.bandwidth_min_mbps) + " MB/s" : "");
  const std::string pair = Printable(Join(r.between, " and "), 120);
  if (*r.latency_us > limits.latency_max_us) {
    return Fail(kCheck, CheckScope::kCluster, subject,
                "ping-pong latency between " + pair + " is " + FormatNumber(*r.latency_us) + " us, over " +
                    FormatNumber(limits.latency_max_us) + " us (validate_mpi_latency_max_us)",
                {}, measured, threshold);
  }
  if (limits.bandwidth_min_mbps && *r.bandwidth_mbps < *limits.bandwidth_min_mbps) {
    return Fail(kCheck, CheckScope::kCluster, subject,
                "ping-pong bandwidth between " + pair + " is " + FormatNumber(*r.bandwidth_mbps) + " MB/s, under " +
                    FormatNumber(*limits.bandwidth_min_mbps) + " MB/s (" + limits.bandwidth_floor_source + ")",
                {}, measured, threshold);
  }
  std::string detail = "srun --mpi=pmix: the ring was right on " + std::to_string(r.ranks) + " ranks (" + across +
                       "); ping-pong between " + pair;
  if (!limits.bandwidth_min_mbps) detail += "; bandwidth not judged: " + limits.bandwidth_floor_source;
  return Pass(kCheck, CheckScope::kCluster, subject, measured, threshold, detail);
}

}  // namespace clusterctl
