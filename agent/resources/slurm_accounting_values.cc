// The fields slurm_accounting manages and the values they take
// (slurm_accounting_model.h): syntax checks and the one form compared.
#include "agent/resources/slurm_accounting_model.h"

#include "common/strings.h"

namespace clusterctl::agent::slurm_accounting {

const Field kParentField{"parent", "Parent", "ParentName", ValueKind::kName};
const Field kDescriptionField{"description", "Description", "Description", ValueKind::kText};

namespace {

using K = ValueKind;

// The settings this kind manages; adding one is a row (and its doc line).
const std::vector<Field> kQosFields = {
    {"priority", "Priority", "Priority", K::kCount},
    {"max_wall", "MaxWall", "MaxWall", K::kTime},
    {"grp_tres", "GrpTRES", "GrpTRES", K::kTres},
    {"max_tres_per_user", "MaxTRESPerUser", "MaxTRESPU", K::kTres},
    {"max_tres_per_job", "MaxTRESPerJob", "MaxTRES", K::kTres},
    {"max_jobs_per_user", "MaxJobsPerUser", "MaxJobsPU", K::kCount},
    {"flags", "Flags", "Flags", K::kFlags},
    // GPU budgets and shares (issue 50): TRES-minutes all its jobs together
    // may use (gres/gpu=6000: 100 GPU-hours), what one account's may hold.
    {"grp_tres_mins", "GrpTRESMins", "GrpTRESMins", K::kTres},
    {"max_tres_per_account", "MaxTRESPerAccount", "MaxTRESPA", K::kTres},
};
// sacctmgr(1), "SPECIFICATIONS FOR QOS", Flags (Slurm 22.05 to 24.x).
const std::set<std::string> kQosFlags = {"DenyOnLimit",       "EnforceUsageThreshold", "NoDecay",
                                         "NoReserve",         "OverPartQOS",           "PartitionMaxNodes",
                                         "PartitionMinNodes", "PartitionTimeLimit",    "RequiresReservation",
                                         "UsageFactorSafe"};
const std::vector<Field> kAssociationFields = {
    {"fairshare", "Fairshare", "Fairshare", K::kShare},
    {"qos", "QOS", "QOS", K::kNames},
    {"default_qos", "DefaultQOS", "DefaultQOS", K::kName},
    // An association's own limits: an account's cover all its jobs (and its
    // children's), a user's that user's in that account.
    {"grp_tres", "GrpTRES", "GrpTRES", K::kTres},
    {"grp_tres_mins", "GrpTRESMins", "GrpTRESMins", K::kTres},
    {"max_tres_per_job", "MaxTRESPerJob", "MaxTRES", K::kTres},
};

bool Digits(std::string_view text, size_t most = 15) {
  return !text.empty() && text.size() <= most && text.find_first_not_of("0123456789") == std::string_view::npos;
}

std::string WithoutLeadingZeros(std::string_view digits) {
  const size_t first = digits.find_first_not_of('0');
  return first == std::string_view::npos ? "0" : std::string(digits.substr(first));
}

bool MemoryLike(std::string_view tres) {
  return tres == "mem" || tres == "vmem" || tres == "fs/disk" || tres.substr(0, 3) == "bb/";
}

// Minutes of a Slurm time (time_str2mins: seconds round up); "" unlimited.
std::optional<std::string> Minutes(std::string_view text) {
  if (text == "UNLIMITED" || text == "INFINITE" || text == "-1") return "";
  long long days = 0;
  std::string_view rest = text;
  const size_t dash = text.find('-');
  if (dash != std::string_view::npos) {
    if (!Digits(text.substr(0, dash), 6)) return std::nullopt;
    days = std::stoll(std::string(text.substr(0, dash)));
    rest = text.substr(dash + 1);
  }
  std::vector<std::string> parts = Split(rest, ':');
  if (parts.size() > 3) return std::nullopt;  // Split gives one part at least
  std::vector<long long> n;
  for (const std::string& part : parts) {
    if (!Digits(part, 6)) return std::nullopt;
    n.push_back(std::stoll(part));
  }
  long long seconds = 0;
  if (dash != std::string_view::npos) {  // D-H, D-H:M, D-H:M:S
    seconds = n[0] * 3600 + (n.size() > 1 ? n[1] * 60 : 0) + (n.size() > 2 ? n[2] : 0);
  } else if (n.size() == 1) {
    seconds = n[0] * 60;  // minutes
  } else if (n.size() == 2) {
    seconds = n[0] * 60 + n[1];  // MM:SS
  } else {
    seconds = n[0] * 3600 + n[1] * 60 + n[2];
  }
  return std::to_string(days * 1440 + (seconds + 59) / 60);
}

// NAME=COUNT pairs sorted by name, memory-like counts in MiB.
std::optional<std::string> TresCanonical(std::string_view text) {
  if (text.empty()) return "";
  std::map<std::string, std::string> counts;
  for (const std::string& item : Split(text, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return std::nullopt;
    const std::string name = item.substr(0, eq);
    std::string count = item.substr(eq + 1);
    const size_t slash = name.find('/');
    const std::string kind = name.substr(0, slash);
    if (kind.empty() || !IsAlnumOr(kind, "") ||
        kind.find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != std::string::npos ||
        (slash != std::string::npos && (slash + 1 == name.size() || !IsAlnumOr(name.substr(slash + 1), "_.:-")))) {
      return std::nullopt;
    }
    long long scale = 1;
    const std::string units = "KMGTP";
    const size_t power = count.empty() ? std::string::npos : units.find(count.back());
    if (power != std::string::npos) {
      if (!MemoryLike(name)) return std::nullopt;
      count.pop_back();
      scale = power == 0 ? -1024 : 1LL << (10 * (power - 1));  // K: divided, rounded up
    }
    if (!Digits(count, 12) || counts.count(name)) return std::nullopt;
    long long value = std::stoll(count);
    value = scale < 0 ? (value + 1023) / 1024 : value * scale;
    counts[name] = std::to_string(value);
  }
  std::vector<std::string> pairs;
  for (const auto& [name, count] : counts) pairs.push_back(name + "=" + count);
  return Join(pairs, ",");
}

// A set of names (or of flags), sorted.
std::optional<std::string> NamesCanonical(std::string_view text, bool flags) {
  std::set<std::string> names;
  for (const std::string& name : Split(text, ',')) {
    if (name.empty()) continue;
    if (flags ? !QosFlags().count(name) : !NameRefusal(name).empty()) return std::nullopt;
    names.insert(name);
  }
  return Join(std::vector<std::string>(names.begin(), names.end()), ",");
}

}  // namespace

const std::vector<Field>& QosFields() { return kQosFields; }
const std::vector<Field>& AssociationFields() { return kAssociationFields; }
const std::set<std::string>& QosFlags() { return kQosFlags; }

std::string NameRefusal(std::string_view name) {
  const bool first_ok = !name.empty() && IsAlnumOr(name.substr(0, 1), "_");
  if (first_ok && name.size() <= 64 && IsAlnumOr(name, "_.-") &&
      name.find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") == std::string_view::npos) {
    return "";
  }
  return "'" + Printable(name, 80) +
         "' is not a Slurm name (at most 64 lower-case letters, digits and _ . -, the first a letter, digit or _)";
}

std::string TresRefusal(std::string_view tres) {
  if (!tres.empty() && TresCanonical(tres)) return "";
  return "'" + Printable(tres, 80) +
         "' is not a TRES list (NAME=COUNT,...: cpu=64,mem=256G,gres/gpu=8; a K M G T P suffix only for mem, vmem, "
         "fs/disk, bb/...)";
}

std::string TimeRefusal(std::string_view time) {
  if (Minutes(time)) return "";
  return "'" + Printable(time, 80) +
         "' is not a Slurm time (MINUTES, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or UNLIMITED)";
}

std::optional<std::string> Canonical(ValueKind kind, std::string_view text) {
  if (text.empty()) return "";
  switch (kind) {
    case K::kCount: return Digits(text) ? std::optional(WithoutLeadingZeros(text)) : std::nullopt;
    case K::kTime: return Minutes(text);
    case K::kTres: return TresCanonical(text);
    case K::kShare:
      if (text == "parent") return "parent";
      return Digits(text) ? std::optional(WithoutLeadingZeros(text)) : std::nullopt;
    case K::kNames: return NamesCanonical(text, false);
    case K::kFlags: return NamesCanonical(text, true);
    case K::kName: return NameRefusal(text).empty() ? std::optional(std::string(text)) : std::nullopt;
    case K::kText: return std::string(text);
  }
  return std::nullopt;
}

}  // namespace clusterctl::agent::slurm_accounting
