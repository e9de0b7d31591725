// ParseCurrent (slurm_accounting_model.h): what sacctmgr shows, read from
// the --parsable2 --noheader output of CurrentQueries.
#include "agent/resources/slurm_accounting_model.h"
#include "common/strings.h"

namespace clusterctl::agent::slurm_accounting {

namespace {

std::string Columns(const std::vector<std::string>& leading, const std::vector<Field>& fields) {
  std::vector<std::string> columns = leading;
  for (const Field& f : fields) columns.push_back(f.column);
  return "format=" + Join(columns, ",");
}

const std::vector<std::string> kQosLead = {"Name"};
const std::vector<std::string> kAssociationLead = {"Account", "User", "Partition", kParentField.column};

// Rows of `--parsable2 --noheader` output with exactly `count` columns;
// with `free_last`, the last column takes any further '|' (a description).
Result<std::vector<std::vector<std::string>>> Rows(const std::string& output, size_t count, const char* what,
                                                   bool free_last = false) {
  std::vector<std::vector<std::string>> rows;
  for (const std::string& line : Split(output, '\n')) {
    if (Trim(line).empty()) continue;
    std::vector<std::string> f = Split(line, '|');
    if (free_last && f.size() > count) {
      std::vector<std::string> rest(f.begin() + static_cast<long>(count) - 1, f.end());
      f.resize(count - 1);
      f.push_back(Join(rest, "|"));
    }
    if (f.size() != count) {
      return Status::Corruption(std::string("sacctmgr's ") + what + " line has " + std::to_string(f.size()) +
                                " columns, not " + std::to_string(count) + ": '" + Printable(line, 120) + "'");
    }
    rows.push_back(std::move(f));
  }
  return rows;
}

}  // namespace

std::vector<std::vector<std::string>> CurrentQueries(const std::string& cluster) {
  const std::vector<std::string> show = {"sacctmgr", "--parsable2", "--noheader", "show"};
  auto query = [&](std::vector<std::string> rest) {
    std::vector<std::string> argv = show;
    argv.insert(argv.end(), rest.begin(), rest.end());
    return argv;
  };
  return {
      query({"qos", Columns(kQosLead, QosFields())}),
      query({"account", std::string("format=Account,") + kDescriptionField.column}),
      query({"association", "where", "Cluster=" + cluster, Columns(kAssociationLead, AssociationFields())}),
      query({"user", "format=User,DefaultAccount"}),
  };
}

Result<Current> ParseCurrent(const std::vector<std::string>& outputs) {
  if (outputs.size() != 4) return Status::Internal("ParseCurrent needs the outputs of the 4 queries");
  Current current;
  auto keyed = [](const std::vector<std::string>& lead, const std::vector<Field>& fields,
                  const std::vector<std::string>& row) {
    std::map<std::string, std::string> columns;
    size_t i = 0;
    for (const std::string& name : lead) columns[name] = row[i++];
    for (const Field& f : fields) columns[f.column] = row[i++];
    return columns;
  };
  const size_t qos_count = kQosLead.size() + QosFields().size();
  auto qos_rows = Rows(outputs[0], qos_count, "QoS");
  if (!qos_rows.ok()) return qos_rows.status();
  for (const auto& row : *qos_rows) {
    current.qos[row[0]] = keyed(kQosLead, QosFields(), row);
  }
  auto account_rows = Rows(outputs[1], 2, "account", true);
  if (!account_rows.ok()) return account_rows.status();
  for (const auto& row : *account_rows) current.account_descriptions[row[0]] = row[1];
  const size_t association_count = kAssociationLead.size() + AssociationFields().size();
  auto association_rows = Rows(outputs[2], association_count, "association");
  if (!association_rows.ok()) return association_rows.status();
  for (const auto& row : *association_rows) {
    if (!row[2].empty()) continue;  // a partition's association: not managed here
    current.associations[{row[0], row[1]}] = keyed(kAssociationLead, AssociationFields(), row);
  }
  auto user_rows = Rows(outputs[3], 2, "user");
  if (!user_rows.ok()) return user_rows.status();
  for (const auto& row : *user_rows) current.default_accounts[row[0]] = row[1];
  return current;
}

}  // namespace clusterctl::agent::slurm_accounting
