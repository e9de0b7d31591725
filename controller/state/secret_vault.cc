#include "controller/state/secret_vault.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <sstream>
#include <string_view>
#include <vector>

#include "common/atomic_file.h"

namespace clusterctl {
namespace {

void RandomBytes(char* out, size_t size) {
  size_t filled = 0;
  while (filled < size) {
    ssize_t n = ::getrandom(out + filled, size - filled, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      // getrandom cannot fail on a supported kernel once seeded; refuse to
      // continue with a weak value.
      std::abort();
    }
    filled += static_cast<size_t>(n);
  }
}

Result<std::string> ReadPrivateFile(const std::string& path, bool& exists) {
  exists = false;
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::string();
    return Status::IoError("cannot read " + path + ": " + std::strerror(errno));
  }
  exists = true;
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::IoError(path + " is not a regular file");
  }
  if (st.st_uid != ::geteuid()) {
    ::close(fd);
    return Status::FailedPrecondition(path + " belongs to uid " + std::to_string(st.st_uid) +
                                      ", not to the user running clusterctl (uid " + std::to_string(::geteuid()) +
                                      "); someone else may have planted or read it: remove it to generate a new one");
  }
  if ((st.st_mode & 077) != 0) {
    ::close(fd);
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return Status::FailedPrecondition(path + " is readable by group or others (mode " + std::string(mode) +
                                      "); treat it as exposed: remove it to generate a new one, or chmod 600 it");
  }
  std::string data;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0) data.append(buffer, static_cast<size_t>(n));
  ::close(fd);
  if (n < 0) return Status::IoError("cannot read " + path);
  return data;
}

void ReplaceAll(std::string& text, const std::string& value, const std::string& mark) {
  for (size_t at = text.find(value); at != std::string::npos; at = text.find(value, at + mark.size())) {
    text.replace(at, value.size(), mark);
  }
}

std::string Trimmed(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return "";
  return std::string(text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1));
}

// What of a secret file's content is masked: the whole, its lines, its long words.
std::vector<std::string> MaskedParts(const std::string& content) {
  std::vector<std::string> parts = {Trimmed(content)};
  size_t start = 0;
  while (start < content.size()) {
    size_t end = content.find('\n', start);
    if (end == std::string::npos) end = content.size();
    const std::string line = Trimmed(std::string_view(content).substr(start, end - start));
    if (line.size() >= 6) parts.push_back(line);
    std::istringstream words(line);
    for (std::string word; words >> word;) {
      if (word.size() >= 16) parts.push_back(word);
    }
    start = end + 1;
  }
  return parts;
}

}  // namespace

std::string SecretVault::Mask(std::string text) const {
  for (const auto& [name, value] : values_) {
    if (value.size() < 8) continue;  // too short to mask without mangling unrelated text
    ReplaceAll(text, value, "[secret " + name + "]");
  }
  std::lock_guard<std::mutex> lock(masked_mutex_);
  // Longest first: a whole file before its lines, a line before its words.
  std::vector<std::pair<std::string, std::string>> ordered(masked_.begin(), masked_.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [value, label] : ordered) ReplaceAll(text, value, "[secret " + label + "]");
  return text;
}

void SecretVault::AddToMask(const std::string& label, const std::string& content) const {
  std::lock_guard<std::mutex> lock(masked_mutex_);
  for (std::string& part : MaskedParts(content)) {
    if (part.size() >= 6) masked_.emplace(std::move(part), label);
  }
}

std::string GenerateSecret(const SecretSpec& spec) {
  if (spec.kind == SecretSpec::Kind::kBytes) {
    std::string bytes(spec.size, '\0');
    RandomBytes(bytes.data(), bytes.size());
    return bytes;
  }
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  constexpr unsigned kLetters = sizeof kAlphabet - 1;  // 62
  std::string password;
  while (password.size() < spec.size) {
    unsigned char c;
    RandomBytes(reinterpret_cast<char*>(&c), 1);
    if (c >= 248) continue;  // 248 = 4 * 62: rejection keeps every letter equally likely
    password.push_back(kAlphabet[c % kLetters]);
  }
  return password;
}

Status SecretVault::Prepare(const std::map<std::string, SecretSpec>& specs, const std::set<std::string>& known,
                            const std::set<std::string>& rotate) {
  for (const std::string& name : rotate) {
    if (!specs.count(name)) return Status::InvalidArgument("--rotate-secret " + name + ": no role in use declares it");
  }
  for (const auto& [name, spec] : specs) {
    const std::string path = dir_ + "/" + name;
    bool exists = false;
    auto stored = ReadPrivateFile(path, exists);
    if (rotate.count(name)) {
      exists = false;  // replaced on purpose
    } else if (!stored.ok()) {
      return stored.status().WithContext("secret " + name);
    } else if (!exists && known.count(name)) {
      return Status::FailedPrecondition(
          "secret " + name + " was generated by an earlier deploy and " + path +
          " is gone; nothing was changed. Restore the file from a backup, or replace the secret on every node "
          "on purpose with --rotate-secret " + name);
    }
    if (exists) {
      if (stored->size() != spec.size) {
        return Status::FailedPrecondition("secret " + name + " in " + path + " has " + std::to_string(stored->size()) +
                                          " bytes, expected " + std::to_string(spec.size) +
                                          "; remove the file to generate a new one (every node then gets it)");
      }
      values_[name] = std::move(*stored);
    } else {
      std::string value = GenerateSecret(spec);
      if (persist_) CLUSTERCTL_RETURN_IF_ERROR(Store(name, value));
      values_[name] = std::move(value);
      generated_.push_back(name);
    }
    specs_[name] = spec;
  }
  return Status::Ok();
}

// The common atomic replace: a crash leaves the old secret or the new one,
// never a partial one.
Status SecretVault::Store(const std::string& name, const std::string& value) {
  if (::mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST) {
    return Status::IoError("cannot create " + dir_ + ": " + std::strerror(errno));
  }
  return WriteFileAtomic(dir_ + "/" + name, value, 0600, ::getuid(), ::getgid())
      .WithContext("cannot store secret " + name);
}

}  // namespace clusterctl
