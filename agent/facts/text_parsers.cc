#include "agent/facts/text_parsers.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "agent/facts/arm_cpu.h"
#include "common/strings.h"

namespace clusterctl::facts {
namespace {

// "key: value" lines (cpuinfo, meminfo); blank lines separate records.
std::vector<std::map<std::string, std::string>> KeyValueRecords(std::string_view text, char separator) {
  std::vector<std::map<std::string, std::string>> records(1);
  for (const std::string& line : Split(text, '\n')) {
    if (Trim(line).empty()) {
      if (!records.back().empty()) records.emplace_back();
      continue;
    }
    size_t pos = line.find(separator);
    if (pos == std::string::npos) continue;
    records.back()[std::string(Trim(line.substr(0, pos)))] = std::string(Trim(line.substr(pos + 1)));
  }
  if (records.back().empty()) records.pop_back();
  return records;
}

std::string Unquote(std::string_view value) {
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
    return std::string(value.substr(1, value.size() - 2));
  }
  return std::string(value);
}

bool MatchesAny(const std::string& name, const std::vector<std::string>& patterns) {
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return GlobMatch(p, name); });
}

// One /proc/cpuinfo record's CPU name: x86's "model name" (or another
// architecture's own line), else an Arm core's, from its MIDR fields.
std::string CpuModelOf(const std::map<std::string, std::string>& record) {
  for (const char* key : {"model name", "Model", "cpu model"}) {
    if (auto it = record.find(key); it != record.end()) return it->second;
  }
  auto implementer = record.find("CPU implementer");
  auto part = record.find("CPU part");
  if (implementer == record.end() || part == record.end()) return "";
  return ArmCpuName(implementer->second, part->second);
}

}  // namespace

nlohmann::json ParseOsRelease(std::string_view text) {
  std::map<std::string, std::string> values;
  for (const std::string& line : Split(text, '\n')) {
    size_t eq = line.find('=');
    if (eq == std::string::npos || line[0] == '#') continue;
    values[line.substr(0, eq)] = Unquote(Trim(line.substr(eq + 1)));
  }
  std::string id = values["ID"];
  std::string like = " " + values["ID_LIKE"] + " ";
  std::string family = id;
  if (id == "debian" || id == "ubuntu" || like.find(" debian ") != std::string::npos ||
      like.find(" ubuntu ") != std::string::npos) {
    family = "debian";
  } else if (id == "rhel" || id == "rocky" || id == "almalinux" || id == "centos" || id == "fedora" ||
             like.find(" rhel ") != std::string::npos || like.find(" fedora ") != std::string::npos) {
    family = "rhel";
  }
  return {{"id", id},
          {"version_id", values["VERSION_ID"]},
          {"version_codename", values["VERSION_CODENAME"]},
          {"pretty_name", values["PRETTY_NAME"]},
          {"family", family}};
}

nlohmann::json ParseCpuinfo(std::string_view text) {
  auto records = KeyValueRecords(text, ':');
  int cpus = 0;
  std::set<std::string> sockets;
  std::set<std::pair<std::string, std::string>> cores;
  bool topology = true;
  std::string model;
  for (auto& r : records) {
    if (!r.count("processor")) continue;
    ++cpus;
    if (model.empty()) model = CpuModelOf(r);
    if (r.count("physical id") && r.count("core id")) {
      sockets.insert(r["physical id"]);
      cores.insert({r["physical id"], r["core id"]});
    } else {
      topology = false;
    }
  }
  int socket_count = 1, cores_per_socket = cpus, threads_per_core = 1;
  if (topology && cpus > 0 && !sockets.empty()) {
    socket_count = static_cast<int>(sockets.size());
    cores_per_socket = static_cast<int>(cores.size()) / socket_count;
    threads_per_core = cores.empty() ? 1 : cpus / static_cast<int>(cores.size());
  }
  return {{"model", model},
          {"cpus", cpus},
          {"sockets", socket_count},
          {"cores_per_socket", cores_per_socket},
          {"threads_per_core", threads_per_core}};
}

nlohmann::json ParseMeminfo(std::string_view text) {
  auto records = KeyValueRecords(text, ':');
  auto kib = [&](const char* key) -> long long {
    if (records.empty() || !records[0].count(key)) return 0;
    return std::atoll(records[0][key].c_str());
  };
  return {{"total_mib", kib("MemTotal") / 1024}, {"available_mib", kib("MemAvailable") / 1024}};
}

std::vector<std::string> ParseProcModules(std::string_view text) {
  std::vector<std::string> modules;
  for (const std::string& line : Split(text, '\n')) {
    std::string name = line.substr(0, line.find(' '));
    if (!name.empty()) modules.push_back(name);
  }
  std::sort(modules.begin(), modules.end());
  return modules;
}

std::string ParseNvidiaDriverVersion(std::string_view text) {
  static const std::regex kVersion(R"(Kernel Module(?:\s+for\s+\S+)?\s+([0-9]+\.[0-9]+(?:\.[0-9]+)?))");
  std::string s(text);
  std::smatch match;
  if (std::regex_search(s, match, kVersion)) return match[1];
  return "";
}

nlohmann::json ParseDpkgStatus(std::string_view text, const std::vector<std::string>& patterns) {
  nlohmann::json out = nlohmann::json::object();
  std::string package, version, status;
  auto flush = [&] {
    if (!package.empty() && status.find(" installed") != std::string::npos && MatchesAny(package, patterns)) {
      out[package] = version;
    }
    package.clear();
    version.clear();
    status.clear();
  };
  for (const std::string& line : Split(text, '\n')) {
    if (line.empty()) {
      flush();
    } else if (line.rfind("Package: ", 0) == 0) {
      package = line.substr(9);
    } else if (line.rfind("Version: ", 0) == 0) {
      version = line.substr(9);
    } else if (line.rfind("Status: ", 0) == 0) {
      status = line.substr(8);
    }
  }
  flush();
  return out;
}

nlohmann::json ParseRpmList(std::string_view text, const std::vector<std::string>& patterns) {
  nlohmann::json out = nlohmann::json::object();
  for (const std::string& line : Split(text, '\n')) {
    size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    std::string name = line.substr(0, tab);
    if (MatchesAny(name, patterns)) out[name] = std::string(Trim(line.substr(tab + 1)));
  }
  return out;
}

nlohmann::json ParsePartitions(std::string_view text) {
  nlohmann::json disks = nlohmann::json::array();
  static const std::regex kWholeDisk(R"(^(sd[a-z]+|vd[a-z]+|xvd[a-z]+|hd[a-z]+|nvme[0-9]+n[0-9]+|mmcblk[0-9]+)$)");
  for (const std::string& line : Split(text, '\n')) {
    std::istringstream fields(line);
    std::string major, minor, blocks, name;
    if (!(fields >> major >> minor >> blocks >> name)) continue;
    if (!std::regex_match(name, kWholeDisk)) continue;
    disks.push_back({{"name", name}, {"size_bytes", std::atoll(blocks.c_str()) * 1024}});
  }
  return disks;
}

long long ParseUptime(std::string_view text) { return std::atoll(std::string(text).c_str()); }

}  // namespace clusterctl::facts
