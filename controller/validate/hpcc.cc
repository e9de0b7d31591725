#include "controller/validate/hpcc.h"

#include <cmath>
#include <map>
#include <regex>

#include "common/strings.h"

namespace clusterctl {

std::string HpccInput(long long n, int nb) {
  // HPL.dat's lines as hpcc's own _hpccinf.txt sets them (one grid of 1 x 1,
  // right-looking factorisation, a one-ring-modified broadcast), then PTRANS'
  // four lines asking for no sizes beyond HPL's.
  const std::string lines[] = {
      "HPLinpack benchmark input file",
      "clusterctl validate --level acceptance (node.hpcc)",
      "HPL.out      output file name (if any)",
      "8            device out (6=stdout,7=stderr,file)",
      "1            # of problems sizes (N)",
      std::to_string(n) + "         Ns",
      "1            # of NBs",
      std::to_string(nb) + "           NBs",
      "1            PMAP process mapping (0=Row-,1=Column-major)",
      "1            # of process grids (P x Q)",
      "1            Ps",
      "1            Qs",
      "16.0         threshold",
      "1            # of panel fact",
      "2            PFACTs (0=left, 1=Crout, 2=Right)",
      "1            # of recursive stopping criterium",
      "4            NBMINs (>= 1)",
      "1            # of panels in recursion",
      "2            NDIVs",
      "1            # of recursive panel fact.",
      "1            RFACTs (0=left, 1=Crout, 2=Right)",
      "1            # of broadcast",
      "1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)",
      "1            # of lookahead depth",
      "1            DEPTHs (>=0)",
      "2            SWAP (0=bin-exch,1=long,2=mix)",
      "64           swapping threshold",
      "0            L1 in (0=transposed,1=no-transposed) form",
      "0            U  in (0=transposed,1=no-transposed) form",
      "1            Equilibration (0=no,1=yes)",
      "8            memory alignment in double (> 0)",
      "##### This line (no. 32) is ignored (it serves as a separator). ######",
      "0                               Number of additional problem sizes for PTRANS",
      "1200                            values of N",
      "0                               number of additional blocking sizes for PTRANS",
      "40                              values of NB",
  };
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

long long HpccOrderFor(double memory_mib, double percent, int nb) {
  const double bytes = memory_mib * 1024 * 1024 * percent / 100;
  const long long n = static_cast<long long>(std::sqrt(std::max(0.0, bytes) / 8));
  return std::max<long long>(nb, n / nb * nb);
}

namespace {

// The key=value lines of the last summary section; nullopt when there is none.
std::optional<std::map<std::string, std::string>> LastSummary(std::string_view text) {
  const size_t begin = text.rfind("Begin of Summary section.");
  if (begin == std::string_view::npos) return std::nullopt;
  const size_t end = text.find("End of Summary section.", begin);
  if (end == std::string_view::npos) return std::nullopt;
  std::map<std::string, std::string> values;
  for (const std::string& line : Split(text.substr(begin, end - begin), '\n')) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos) values[std::string(Trim(line.substr(0, eq)))] = std::string(Trim(line.substr(eq + 1)));
  }
  return values;
}

Result<double> Number(const std::map<std::string, std::string>& summary, const std::string& key) {
  auto it = summary.find(key);
  char* end = nullptr;
  const double value = it == summary.end() ? 0 : std::strtod(it->second.c_str(), &end);
  if (it == summary.end() || end == it->second.c_str() || !std::isfinite(value) || value <= 0) {
    return Status::InvalidArgument("hpcc's summary has no " + key + (it == summary.end() ? "" : " (" + it->second + ")"));
  }
  return value;
}

}  // namespace

Result<HpccSummary> ParseHpccSummary(std::string_view text) {
  auto summary = LastSummary(text);
  if (!summary) return Status::InvalidArgument("hpccoutf.txt has no summary (hpcc did not finish)");
  if (auto s = summary->find("Success"); s == summary->end() || s->second != "1") {
    return Status::InvalidArgument("hpcc's summary says Success=" + (s == summary->end() ? std::string("(none)") : s->second));
  }
  static const std::regex kFailed(R"((\d+) tests completed and failed residual checks)");
  const std::string hpl(text.substr(text.rfind("Begin of HPL section.") == std::string_view::npos ? 0 : text.rfind("Begin of HPL section.")));
  std::smatch m;
  if (std::regex_search(hpl, m, kFailed) && m[1] != "0") {
    return Status::InvalidArgument("HPL: " + m[1].str() + " tests failed their residual check (wrong results)");
  }
  auto tflops = Number(*summary, "HPL_Tflops");
  auto n = Number(*summary, "HPL_N");
  auto triad = Number(*summary, "StarSTREAM_Triad");
  for (const Result<double>* r : {&tflops, &n, &triad}) {
    if (!r->ok()) return r->status();
  }
  return HpccSummary{.hpl_n = static_cast<long long>(*n), .hpl_gflops = *tflops * 1000, .stream_triad_gbs = *triad};
}

}  // namespace clusterctl
