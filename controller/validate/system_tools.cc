#include "controller/validate/system_tools.h"

#include <cstdlib>
#include <regex>

#include "common/strings.h"
#include "controller/validate/outline.h"

namespace clusterctl {

Result<ChronyTracking> ParseChronyTracking(std::string_view text) {
  OutlineNode root = ParseOutline(text);
  const OutlineNode* system_time = root.Child("System time");
  const OutlineNode* leap = root.Child("Leap status");
  if (system_time == nullptr || leap == nullptr) {
    return Status::InvalidArgument("not chronyc tracking output: " + Printable(Trim(text), 200));
  }
  static const std::regex kOffset(R"(^([0-9.]+) seconds (fast|slow) of NTP time$)");
  std::smatch m;
  if (!std::regex_match(system_time->value, m, kOffset)) {
    return Status::InvalidArgument("chronyc tracking: cannot read " + system_time->text);
  }
  ChronyTracking tracking;
  tracking.offset_s = std::atof(m[1].str().c_str()) * (m[2] == "fast" ? 1 : -1);
  tracking.leap_status = leap->value;
  tracking.reference = root.ValueAt("Reference ID");
  tracking.stratum = std::atoi(root.ValueAt("Stratum", "0").c_str());
  for (const char* key : {"Reference ID", "Stratum", "System time", "Leap status"}) {
    if (const OutlineNode* n = root.Child(key)) tracking.lines.push_back(n->text);
  }
  return tracking;
}

}  // namespace clusterctl
