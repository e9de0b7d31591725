#include "controller/validate/nccl_tests.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <regex>

#include "common/strings.h"
#include "controller/validate/tool_output.h"

namespace clusterctl {
namespace {

std::vector<std::string> Tokens(std::string_view line) {
  std::vector<std::string> out;
  std::string current;
  for (char c : line) {
    if (c == ' ' || c == '\t') {
      if (!current.empty()) out.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) out.push_back(std::move(current));
  return out;
}

}  // namespace

bool RowHasWrongValues(const NcclRow& row) {
  if (row.wrong.empty() || row.wrong == "N/A") return false;
  return std::atof(row.wrong.c_str()) != 0.0;
}

Result<NcclResult> ParseNcclTests(std::string_view text) {
  static const std::regex kOutOfBounds(R"(Out of bounds values\s*:\s*(\d+)\s+(OK|FAILED))");
  static const std::regex kAverage(R"(Avg bus bandwidth\s*:\s*([0-9.]+))");
  static const std::regex kRank(R"(Rank\s+\d+\s.*\sdevice\s+\d+)");
  NcclResult result;
  // Column positions from the header ("size count type [redop] [root] time algbw busbw error|#wrong time ...").
  int columns = 0, time = -1, busbw = -1, wrong = -1, busbw_in_place = -1, time_in_place = -1;
  bool wrong_is_count = false;
  std::smatch m;
  for (const std::string& raw : Split(text, '\n')) {
    std::string line(Trim(StripRankPrefix(raw)));
    if (!result.rows.empty() && IsSpecificCauseLine(line) && !std::regex_search(line, kOutOfBounds)) {
      result.trailing_failures.push_back(line);  // cleared when more rows follow
    }
    if (std::regex_search(line, m, kOutOfBounds)) {
      result.out_of_bounds = std::atoll(m[1].str().c_str());
      result.out_of_bounds_ok = m[2] == "OK";
      result.summary_lines.push_back(line);
      continue;
    }
    if (std::regex_search(line, m, kAverage)) {
      result.average_busbw = std::atof(m[1].str().c_str());
      result.summary_lines.push_back(line);
      continue;
    }
    if (std::regex_search(line, kRank)) ++result.ranks;
    std::string body = line;
    if (!body.empty() && body[0] == '#') body = std::string(Trim(body.substr(1)));
    std::vector<std::string> tokens = Tokens(body);
    if (tokens.size() >= 6 && tokens[0] == "size" && tokens[1] == "count") {
      columns = static_cast<int>(tokens.size());
      time = busbw = wrong = busbw_in_place = time_in_place = -1;
      for (int i = 0; i < columns; ++i) {
        const std::string& t = tokens[static_cast<size_t>(i)];
        if (t == "time" && time < 0) time = i;
        else if (t == "time" && time_in_place < 0) time_in_place = i;
        else if (t == "busbw" && busbw < 0) busbw = i;
        else if (t == "busbw") busbw_in_place = i;
        else if ((t == "error" || t == "#wrong") && wrong < 0) {
          wrong = i;
          wrong_is_count = t == "#wrong";
        }
      }
      continue;
    }
    if (line.empty() || line[0] == '#' || !std::isdigit(static_cast<unsigned char>(line[0]))) continue;
    if (columns == 0 || time < 0 || busbw < 0) {
      return Status::InvalidArgument("nccl-tests result row before a column header: " + Printable(line, 200));
    }
    if (static_cast<int>(tokens.size()) != columns) continue;  // not a result row (a log line starting with a digit)
    NcclRow row;
    row.bytes = std::atoll(tokens[0].c_str());
    row.time_us = std::atof(tokens[static_cast<size_t>(time)].c_str());
    row.busbw_gbps = std::atof(tokens[static_cast<size_t>(busbw)].c_str());
    if (busbw_in_place >= 0) row.busbw_in_place = std::atof(tokens[static_cast<size_t>(busbw_in_place)].c_str());
    if (time_in_place >= 0) row.time_in_place_us = std::atof(tokens[static_cast<size_t>(time_in_place)].c_str());
    if (wrong >= 0) row.wrong = tokens[static_cast<size_t>(wrong)];
    row.wrong_is_count = wrong_is_count;
    row.line = line;
    result.rows.push_back(std::move(row));
    result.trailing_failures.clear();
  }
  if (result.rows.empty()) return Status::InvalidArgument("no nccl-tests result rows");
  if (!result.out_of_bounds) {
    return Status::InvalidArgument("no \"Out of bounds values\" line: the test did not finish (last row: " +
                                   result.rows.back().line + ")");
  }
  return result;
}

}  // namespace clusterctl

namespace clusterctl {

std::optional<SmallMessageLatency> SmallMessageBand(const NcclResult& result) {
  SmallMessageLatency band;
  std::vector<double> times;
  for (const NcclRow& row : result.rows) {
    if (row.bytes < kSmallMessageMin || row.bytes > kSmallMessageMax) continue;
    if (band.rows.empty()) band.smallest = row.bytes;
    band.largest = row.bytes;
    band.rows.push_back(&row);
    double best = row.time_in_place_us > 0 ? std::min(row.time_us, row.time_in_place_us) : row.time_us;
    band.times_us.push_back(best);
    times.push_back(best);
  }
  if (times.empty()) return std::nullopt;
  std::sort(times.begin(), times.end());
  size_t mid = times.size() / 2;
  band.median_us = times.size() % 2 == 1 ? times[mid] : (times[mid - 1] + times[mid]) / 2.0;
  return band;
}

}  // namespace clusterctl
