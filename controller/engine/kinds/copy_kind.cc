// copy: a (large) file from the controller. The planner sends its sha256
// and size instead of its content; when the node lacks the content
// (UploadNeed), the controller streams the source in chunks, resuming after
// what the node already has, and applies the step again to install it.
#include <sys/stat.h>

#include <fstream>

#include "common/sha256.h"
#include "controller/engine/kinds/step_kind.h"
#include "controller/remote/node_programs.h"

namespace clusterctl {
namespace {

// A source "node-program:<name>" is one of the programs clusterctl ships for
// nodes (clusterctl-health), the build for the host's architecture (its
// facts' kernel.arch), from where the controller's node programs are; any
// other source is a file inside the inventory's directory.
constexpr std::string_view kNodeProgram = "node-program:";

// The host's architecture (its facts' kernel.arch, as `uname -m` prints it);
// "" when its facts were never gathered.
std::string HostArchitecture(const KindPlanning& planning) {
  if (planning.inputs.facts == nullptr) return "";
  auto it = planning.inputs.facts->find(planning.host.name);
  if (it == planning.inputs.facts->end() || !it->second.is_object()) return "";
  const nlohmann::json kernel = it->second.value("kernel", nlohmann::json::object());
  return kernel.is_object() && kernel.contains("arch") && kernel["arch"].is_string() ? kernel["arch"].get<std::string>() : "";
}

std::optional<std::string> SourceOf(KindPlanning& planning, const nlohmann::json& params) {
  const nlohmann::json& value = params["source"];
  if (!value.is_string() || value.get<std::string>().rfind(kNodeProgram, 0) != 0) {
    return planning.InventoryFile("source", params);
  }
  auto program = ShippedNodeProgramFor(value.get<std::string>().substr(kNodeProgram.size()), HostArchitecture(planning));
  if (!program.ok()) {
    planning.diagnostics.Error(planning.step.where, "'" + planning.step.name + "' for " + planning.host.name +
                                                        ": copy source " + program.status().message());
    return std::nullopt;
  }
  return *program;
}

class CopyKind final : public StepKind {
 public:
  void Plan(KindPlanning& planning, nlohmann::json& params, PlannedStep& planned) const override {
    const auto source = SourceOf(planning, params);
    if (!source) return;
    planned.copy_source = *source;
    auto cached = planning.file_digests.find(planned.copy_source);
    if (cached == planning.file_digests.end()) {
      struct stat st;
      auto digest = Sha256File(planned.copy_source);
      if (!digest.ok() || ::stat(planned.copy_source.c_str(), &st) != 0) {
        planning.diagnostics.Error(planning.step.where, "copy source '" + planned.copy_source + "' cannot be read");
        return;
      }
      cached = planning.file_digests.emplace(planned.copy_source, std::make_pair(*digest, static_cast<uint64_t>(st.st_size)))
                   .first;
    }
    params["sha256"] = cached->second.first;
    params["size"] = cached->second.second;
  }

  Task<agent_protocol::ResourceResult> AfterCall(KindHost& host, const PlannedStep& step,
                                                 agent_protocol::ResourceResult outcome) const override {
    if (outcome.failed || !outcome.upload) co_return outcome;
    uint64_t resumed_at = 0;
    const agent_protocol::UploadNeed need = *outcome.upload;
    Status uploaded = co_await Upload(host, step, need, resumed_at);
    if (!uploaded.ok()) {
      agent_protocol::ResourceResult failed;
      failed.differences = outcome.differences;
      failed.Fail("uploading " + step.copy_source + ": " + uploaded.message());
      co_return failed;
    }
    outcome = co_await host.transport().Call(step, true);
    outcome.changed = true;
    if (resumed_at > 0) outcome.differences.push_back("upload resumed at byte " + std::to_string(resumed_at));
    co_return outcome;
  }

 private:
  // Streams the source to the node in chunks, resuming after what the node
  // already has when that prefix matches the source byte for byte;
  // `resumed_at` says where the transfer started (0: from the beginning).
  static Task<Status> Upload(KindHost& host, const PlannedStep& step, const agent_protocol::UploadNeed& need,
                             uint64_t& resumed_at) {
    constexpr size_t kChunk = 4u << 20;
    uint64_t offset = need.partial_size;
    if (offset > 0) {
      auto prefix = Sha256File(step.copy_source, offset);
      if (!prefix.ok() || *prefix != need.partial_sha256) offset = 0;
    }
    resumed_at = offset;
    std::ifstream in(step.copy_source, std::ios::binary);
    if (!in) co_return Status::IoError("cannot read " + step.copy_source);
    in.seekg(static_cast<std::streamoff>(offset));
    const std::string path = step.params.value("path", std::string());
    std::string chunk(kChunk, '\0');
    while (in) {
      in.read(chunk.data(), static_cast<std::streamsize>(kChunk));
      const size_t got = static_cast<size_t>(in.gcount());
      if (got == 0 && offset > 0) break;
      agent_protocol::UploadChunkRequest request{path, offset, chunk.substr(0, got)};
      Status sent = co_await host.transport().SendChunk(std::move(request));
      if (!sent.ok()) co_return sent;
      offset += got;
      if (got == 0) break;
    }
    co_return Status::Ok();
  }
};

const StepKindRegistration kCopy("copy", std::make_unique<CopyKind>());

}  // namespace
}  // namespace clusterctl
