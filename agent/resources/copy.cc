// copy: a file streamed from the controller (a driver or MLNX_OFED bundle),
// checksum-verified and resumable.
//
// Protocol: the controller sends `copy` with params {path, sha256, size, ...}.
// When the file is not there yet the outcome's extra says how much of
// "<path>.clusterctl-partial" exists and its SHA-256; the controller resumes
// from there with `upload_chunk` requests and then sends `copy` again, which
// verifies the whole partial file and renames it into place.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "agent/resources/registry.h"
#include "agent/resources/node_files.h"
#include "agent/resources/safe_path.h"
#include "common/sha256.h"

namespace clusterctl::agent {

namespace {

std::string PartialPath(const std::string& path) { return path + ".clusterctl-partial"; }

// The verified partial file becomes the file: owner and mode set through
// its descriptor, then renamed over the path, all within the directory
// opened without untrusted links (safe_path.h).
Status InstallPartial(const std::string& path, const Attributes& attributes) {
  auto parent = ParentDirectory::Open(path);
  if (!parent.ok()) return parent.status();
  const std::string partial = parent->name() + ".clusterctl-partial";
  int fd = ::openat(parent->fd(), partial.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  bool ok = fd >= 0 && ::fchown(fd, attributes.uid, attributes.gid) == 0 &&
            ::fchmod(fd, static_cast<mode_t>(attributes.mode)) == 0 && ::fsync(fd) == 0;
  const int error = errno;
  if (fd >= 0) ::close(fd);
  if (!ok || ::renameat(parent->fd(), partial.c_str(), parent->fd(), parent->name().c_str()) != 0) {
    return Status::IoError("installing " + path + ": " + std::strerror(ok ? errno : error));
  }
  ::fsync(parent->fd());
  return Status::Ok();
}

}  // namespace

ResourceOutcome CopyResource(const ResourceRequest& request, ResourceHost&) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  const std::string path = p["path"].get<std::string>();
  if (!p.contains("sha256") || !p.contains("size")) return outcome.Fail("copy needs sha256 and size (sent by the controller)");
  const std::string want = p["sha256"].get<std::string>();
  const uint64_t size = p["size"].get<uint64_t>();
  FileInfo info = StatPath(path);
  bool content_ok = false;
  if (info.exists && info.is_regular) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && static_cast<uint64_t>(st.st_size) == size) {
      auto digest = Sha256File(path);
      content_ok = digest.ok() && *digest == want;
    }
  }
  if (content_ok) {
    EnsureAttributes(path, p, request.apply, outcome);
    return outcome;
  }
  outcome.Differs(info.exists ? "content differs (sha256)" : "file does not exist");
  const std::string partial = PartialPath(path);
  struct stat st;
  uint64_t have = ::stat(partial.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  if (have > size) {
    RemoveNodeFile(partial);
    have = 0;
  }
  if (!request.apply) return outcome;
  if (have == size) {
    auto digest = Sha256File(partial);
    if (digest.ok() && *digest == want) {
      std::optional<Attributes> attributes = DesiredAttributes(p, 0644, request.apply, outcome);
      if (!attributes) return outcome;
      Status installed = InstallPartial(path, *attributes);
      if (!installed.ok()) outcome.Fail(installed.message());
      return outcome;
    }
    RemoveNodeFile(partial);
    have = 0;
  }
  outcome.upload = agent_protocol::UploadNeed{have, have ? Sha256File(partial).value() : Sha256Hex("")};
  return outcome;
}

// Writes a chunk of a copy at `offset` of the partial file.
Status WriteUploadChunk(const std::string& path, uint64_t offset, const std::string& data) {
  auto parent = ParentDirectory::Open(PartialPath(path));
  if (!parent.ok()) return parent.status();
  auto opened = parent->OpenFile(O_WRONLY | O_CREAT, 0600);
  if (!opened.ok()) return opened.status();
  const int fd = *opened;
  const std::string partial = PartialPath(path);
  if (offset == 0 && ::ftruncate(fd, 0) != 0) {
    ::close(fd);
    return Status::IoError("truncating " + partial);
  }
  size_t written = 0;
  while (written < data.size()) {
    ssize_t n = ::pwrite(fd, data.data() + written, data.size() - written, static_cast<off_t>(offset + written));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int error = errno;
      ::close(fd);
      return Status::IoError("writing " + partial + ": " + std::strerror(error));
    }
    written += static_cast<size_t>(n);
  }
  bool ok = ::fdatasync(fd) == 0;
  ::close(fd);
  return ok ? Status::Ok() : Status::IoError("syncing " + partial);
}

// The kind this file implements, registered with its parameters.
namespace {
using resources::InventoryFile;
using resources::Internal;
using resources::P;
using T = resources::ParamType;

const ResourceKindRegistration kCopyKind(
    {"copy", "a (large) file from the controller: streamed, checksum-verified, resumable",
     {P("path", T::kString, true), InventoryFile("source"), P("owner", T::kString),
      P("group", T::kString), P("mode", T::kMode), Internal("sha256", T::kString), Internal("size", T::kInt)},
     {"source"}},
    CopyResource);

}  // namespace

}  // namespace clusterctl::agent
