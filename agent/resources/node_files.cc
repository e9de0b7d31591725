#include "agent/resources/node_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "agent/resources/safe_path.h"
#include "agent/resources/schema.h"
#include "common/strings.h"

namespace clusterctl::agent {
namespace {

// name:x:id:... lines; returns the id for `name` (or `name` itself when numeric).
std::optional<unsigned> LookupId(const std::string& file, const std::string& name) {
  if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos) {
    return static_cast<unsigned>(std::stoul(name));
  }
  std::optional<std::string> text = ReadWholeFile(file);
  if (!text) return std::nullopt;
  for (const std::string& line : Split(*text, '\n')) {
    std::vector<std::string> fields = Split(line, ':');
    if (fields.size() >= 3 && fields[0] == name) return static_cast<unsigned>(std::stoul(fields[2]));
  }
  return std::nullopt;
}

std::string LookupName(const std::string& file, unsigned id) {
  std::optional<std::string> text = ReadWholeFile(file);
  if (text) {
    for (const std::string& line : Split(*text, '\n')) {
      std::vector<std::string> fields = Split(line, ':');
      if (fields.size() >= 3 && fields[2] == std::to_string(id)) return fields[0];
    }
  }
  return std::to_string(id);
}

}  // namespace

FileInfo StatPath(const std::string& path) {
  FileInfo info;
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return info;
  info.exists = true;
  info.is_regular = S_ISREG(st.st_mode);
  info.is_directory = S_ISDIR(st.st_mode);
  info.is_symlink = S_ISLNK(st.st_mode);
  info.mode = static_cast<int>(st.st_mode & 07777);
  info.uid = st.st_uid;
  info.gid = st.st_gid;
  return info;
}

std::optional<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::optional<std::string> ReadNodeFile(const std::string& path) {
  auto parent = ParentDirectory::Open(path);
  if (!parent.ok()) return std::nullopt;
  auto fd = parent->OpenFile(O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (!fd.ok()) return std::nullopt;
  std::string text;
  char buffer[65536];
  ssize_t n;
  while ((n = ::read(*fd, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(n));
  ::close(*fd);
  if (n < 0) return std::nullopt;
  return text;
}

Status WriteNodeFile(const std::string& path, const std::string& content, int mode, uid_t uid, gid_t gid) {
  auto parent = ParentDirectory::Open(path);
  if (!parent.ok()) return parent.status();
  return parent->WriteAtomic(content, mode, uid, gid);
}

Status RemoveNodeFile(const std::string& path) {
  auto parent = ParentDirectory::Open(path);
  if (!parent.ok()) return parent.status();
  if (::unlinkat(parent->fd(), parent->name().c_str(), 0) != 0 && errno != ENOENT) {
    return Status::IoError("removing " + path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

Status MakeNodeDirectory(const std::string& path, int mode) {
  auto parent = ParentDirectory::Open(path);
  if (!parent.ok()) return parent.status();
  if (::mkdirat(parent->fd(), parent->name().c_str(), static_cast<mode_t>(mode)) != 0 && errno != EEXIST) {
    return Status::IoError("mkdir " + path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

std::optional<uid_t> LookupUid(const std::string& name) { return LookupId("/etc/passwd", name); }
std::optional<gid_t> LookupGid(const std::string& name) { return LookupId("/etc/group", name); }
std::string UserName(uid_t uid) { return LookupName("/etc/passwd", uid); }
std::string GroupName(gid_t gid) { return LookupName("/etc/group", gid); }

void EnsureFileContent(const std::string& path, const std::optional<std::string>& content, int mode, bool apply,
                       ResourceOutcome& outcome) {
  FileInfo info = StatPath(path);
  if (!content) {
    if (!info.exists) return;
    outcome.Differs(path + " exists (to be removed)");
    if (!apply) return;
    if (Status removed = RemoveNodeFile(path); !removed.ok()) outcome.Fail(removed.message());
    return;
  }
  std::optional<std::string> current = info.exists ? ReadNodeFile(path) : std::nullopt;
  if (current == content && info.mode == mode) return;
  outcome.Differs(info.exists ? path + " differs" : path + " missing");
  if (!apply) return;
  Status written = WriteNodeFile(path, *content, mode, 0, 0);
  if (!written.ok()) outcome.Fail(written.message());
}

std::string ModeText(int mode) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "%04o", mode);
  return buffer;
}

// A missing user or group fails an apply; a check (a plan on a fresh node,
// where an earlier step's package creates the user) reports a difference.
void MissingAccount(const std::string& what, const std::string& name, bool apply, ResourceOutcome& outcome) {
  if (apply) {
    outcome.Fail(what + " '" + name + "' does not exist");
  } else {
    outcome.Differs(what + " '" + name + "' does not exist yet");
  }
}

// The ids the owner and group parameters name (unset without them). False
// when an account is missing: reported by MissingAccount.
bool ResolveAccounts(const nlohmann::json& params, bool apply, ResourceOutcome& outcome, std::optional<uid_t>& uid,
                     std::optional<gid_t>& gid) {
  if (params.contains("owner")) {
    uid = LookupUid(params["owner"].get<std::string>());
    if (!uid) {
      MissingAccount("user", params["owner"].get<std::string>(), apply, outcome);
      return false;
    }
  }
  if (params.contains("group")) {
    gid = LookupGid(params["group"].get<std::string>());
    if (!gid) {
      MissingAccount("group", params["group"].get<std::string>(), apply, outcome);
      return false;
    }
  }
  return true;
}

std::optional<Attributes> DesiredAttributes(const nlohmann::json& params, int default_mode, bool apply, ResourceOutcome& outcome) {
  std::optional<uid_t> uid;
  std::optional<gid_t> gid;
  if (!ResolveAccounts(params, apply, outcome, uid, gid)) return std::nullopt;
  Attributes a;
  a.mode = params.contains("mode") ? resources::ParseMode(params["mode"]) : default_mode;
  if (uid) a.uid = *uid;
  if (gid) a.gid = *gid;
  return a;
}

bool EnsureAttributes(const std::string& path, const nlohmann::json& params, bool apply, ResourceOutcome& outcome) {
  FileInfo info = StatPath(path);
  if (!info.exists) return true;
  std::optional<uid_t> uid;
  std::optional<gid_t> gid;
  if (!ResolveAccounts(params, apply, outcome, uid, gid)) return false;
  if (uid) {
    if (*uid != info.uid) {
      outcome.Differs("owner " + UserName(info.uid) + " -> " + params["owner"].get<std::string>());
      if (apply) {
        if (Status changed = ChangeAttributes(path, *uid, static_cast<gid_t>(-1), -1); !changed.ok()) {
          outcome.Fail(changed.message());
          return false;
        }
      }
    }
  }
  if (gid) {
    if (*gid != info.gid) {
      outcome.Differs("group " + GroupName(info.gid) + " -> " + params["group"].get<std::string>());
      if (apply) {
        if (Status changed = ChangeAttributes(path, static_cast<uid_t>(-1), *gid, -1); !changed.ok()) {
          outcome.Fail(changed.message());
          return false;
        }
      }
    }
  }
  if (params.contains("mode") && !info.is_symlink) {
    int mode = resources::ParseMode(params["mode"]);
    if (mode != info.mode) {
      outcome.Differs("mode " + ModeText(info.mode) + " -> " + ModeText(mode));
      if (apply) {
        if (Status changed = ChangeAttributes(path, static_cast<uid_t>(-1), static_cast<gid_t>(-1), mode); !changed.ok()) {
          outcome.Fail(changed.message());
          return false;
        }
      }
    }
  }
  return true;
}

std::string UnifiedDiff(const std::string& before, const std::string& after, const std::string& path) {
  if (before == after) return "";
  std::vector<std::string> a = Split(before, '\n'), b = Split(after, '\n');
  if (!a.empty() && a.back().empty()) a.pop_back();
  if (!b.empty() && b.back().empty()) b.pop_back();
  // Longest common subsequence table; files we diff are configuration files.
  if (a.size() * b.size() > 4'000'000) {
    return "--- " + path + "\n+++ " + path + "\n(" + std::to_string(a.size()) + " -> " + std::to_string(b.size()) +
           " lines; too large to diff)\n";
  }
  std::vector<std::vector<int>> lcs(a.size() + 1, std::vector<int>(b.size() + 1, 0));
  for (size_t i = a.size(); i-- > 0;) {
    for (size_t j = b.size(); j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  std::vector<std::pair<char, const std::string*>> ops;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && j < b.size() && a[i] == b[j]) {
      ops.emplace_back(' ', &a[i]);
      ++i;
      ++j;
    } else if (i < a.size() && (j == b.size() || lcs[i + 1][j] >= lcs[i][j + 1])) {
      ops.emplace_back('-', &a[i++]);  // removals before additions, as diff(1) prints them
    } else {
      ops.emplace_back('+', &b[j++]);
    }
  }
  // Changed lines with three lines of context; "@@" between distant hunks.
  constexpr size_t kContext = 3;
  std::vector<bool> keep(ops.size(), false);
  for (size_t k = 0; k < ops.size(); ++k) {
    if (ops[k].first == ' ') continue;
    size_t from = k >= kContext ? k - kContext : 0;
    for (size_t m = from; m < std::min(ops.size(), k + kContext + 1); ++m) keep[m] = true;
  }
  std::string out = "--- " + path + "\n+++ " + path + "\n";
  bool in_hunk = false;
  for (size_t k = 0; k < ops.size(); ++k) {
    if (!keep[k]) {
      in_hunk = false;
      continue;
    }
    if (!in_hunk) out += "@@\n";
    in_hunk = true;
    out += ops[k].first + *ops[k].second + "\n";
  }
  return out;
}

}  // namespace clusterctl::agent
