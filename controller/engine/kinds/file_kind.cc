// file: the controller renders the content (inline, a template, a file in
// the inventory's directory, or a secret) and sends it as the step's body.
#include "controller/engine/kinds/step_kind.h"

#include "common/json_text.h"
#include "common/strings.h"

namespace clusterctl {
namespace {

class FileKind final : public StepKind {
 public:
  void Plan(KindPlanning& planning, nlohmann::json& params, PlannedStep& planned) const override {
    if (params.contains("content")) {
      planned.body = params["content"].is_string() ? params["content"].get<std::string>() : JsonText(params["content"]);
    } else if (planning.step.content_template) {
      planned.body = planning.step.content_template->Render(planning.stack, planning.diagnostics);
    } else if (params.contains("source")) {
      planned.body = planning.ReadInventoryFile("source", params, "file source").value_or("");
      if (params.value("secret", false)) MaskSecretFile(planning, params, planned.body);
    } else if (params.contains("secret_content")) {
      SecretContent(planning, params, planned);
    }
    planned.secret = params.value("secret", false);
  }

 private:
  // A secret file the inventory names (a TLS key, a password): its content
  // is masked wherever the run's text goes (step errors and output, history,
  // events), as the vault's own secrets are.
  static void MaskSecretFile(KindPlanning& planning, const nlohmann::json& params, const std::string& body) {
    if (!planning.inputs.secrets || body.empty()) return;
    const nlohmann::json& source = params["source"];
    planning.inputs.secrets->AddToMask("file " + (source.is_string() ? Printable(source.get<std::string>(), 80) : "source"),
                                       body);
  }

  // A secret the run prepared: never shown, never backed up.
  static void SecretContent(KindPlanning& planning, nlohmann::json& params, PlannedStep& planned) {
    const std::string name = params["secret_content"].get<std::string>();
    const std::map<std::string, std::string> none;
    const auto& values = planning.inputs.secrets ? planning.inputs.secrets->values() : none;
    auto value = values.find(name);
    if (value == values.end()) {
      planning.diagnostics.Error(planning.step.where, "secret '" + name + "' was not prepared for this run");
      return;
    }
    planned.body = value->second;
    params["secret"] = true;
  }
};

const StepKindRegistration kFile("file", std::make_unique<FileKind>());

}  // namespace
}  // namespace clusterctl
