// The bash and zsh completion scripts: a fixed engine that walks the words
// typed so far, and a table generated from the App that says, per command
// path ("inventory check"), its subcommands, options and what their values
// and the positionals complete to (CompletionKindOf).
#include <CLI/CLI.hpp>
#include <sstream>

#include "common/strings.h"
#include "controller/cli/generate_docs.h"

namespace clusterctl {
namespace {

// One command's row of the table.
struct CommandSpec {
  std::string path;                                            // "" for clusterctl itself
  std::vector<std::pair<std::string, std::string>> subcommands;  // name, description
  std::vector<std::pair<std::string, std::string>> options;      // "-l" / "--limit", description
  std::vector<std::pair<std::string, std::string>> values;       // option taking a value, its kind
  std::vector<std::string> positionals;                        // kinds; the last may end in "..."
};

std::string KindName(CompletionKind kind) {
  switch (kind) {
    case CompletionKind::kInventory: return "inventory";
    case CompletionKind::kFile: return "file";
    case CompletionKind::kDirectory: return "dir";
    case CompletionKind::kNames: return "names";
    case CompletionKind::kCommand: return "command";
    case CompletionKind::kTags: return "tags";
    case CompletionKind::kRoles: return "roles";
    case CompletionKind::kChecks: return "checks";
    case CompletionKind::kFlag:
    case CompletionKind::kOther: break;
  }
  return "other";
}

void AddOptionNames(const CLI::Option& option, CommandSpec& spec) {
  std::vector<std::string> names;
  for (const std::string& s : option.get_snames()) names.push_back("-" + s);
  for (const std::string& l : option.get_lnames()) names.push_back("--" + l);
  CompletionKind kind = CompletionKindOf(option);
  for (const std::string& name : names) {
    spec.options.emplace_back(name, option.get_description());
    if (kind != CompletionKind::kFlag) spec.values.emplace_back(name, KindName(kind));
  }
}

CommandSpec SpecOf(const CLI::App& command) {
  CommandSpec spec;
  spec.path = CommandPath(command);
  for (const CLI::App* sub : VisibleSubcommands(command)) {
    spec.subcommands.emplace_back(sub->get_name(), sub->get_description());
  }
  if (const CLI::Option* help = command.get_help_ptr()) AddOptionNames(*help, spec);
  for (const CLI::Option* option : DocumentedOptions(command)) {
    if (!option->get_positional()) {
      AddOptionNames(*option, spec);
    } else {
      bool repeated = option->get_items_expected_max() > 1;
      spec.positionals.push_back(KindName(CompletionKindOf(*option)) + (repeated ? "..." : ""));
    }
  }
  return spec;
}

void CollectSpecs(const CLI::App& command, std::vector<CommandSpec>& specs) {
  specs.push_back(SpecOf(command));
  for (const CLI::App* sub : VisibleSubcommands(command)) CollectSpecs(*sub, specs);
}

std::vector<CommandSpec> AllSpecs(const CLI::App& app) {
  std::vector<CommandSpec> specs;
  CollectSpecs(app, specs);
  return specs;
}

std::string ReplaceAll(const std::string& text, char from, const std::string& to) {
  std::string replaced;
  for (char c : text) {
    if (c == from) {
      replaced += to;
    } else {
      replaced += c;
    }
  }
  return replaced;
}

// A word in single quotes, for either shell.
std::string Quote(const std::string& text) { return "'" + ReplaceAll(text, '\'', "'\\''") + "'"; }

// "name:description" for zsh's _describe (a ':' in the name is escaped).
std::string Described(const std::pair<std::string, std::string>& item) {
  return Quote(ReplaceAll(item.first, ':', "\\:") + ":" + item.second);
}

template <typename T, typename F>
std::string Words(const std::vector<T>& items, F word) {
  std::vector<std::string> words;
  for (const T& item : items) words.push_back(word(item));
  return Join(words, " ");
}

std::string First(const std::pair<std::string, std::string>& p) { return p.first; }

// The bash engine: _clusterctl_spec (generated) sets `subcommands`,
// `options`, `values` (" option:kind ...") and `positionals` for a path.
constexpr const char* kBashEngine = R"BASH(
# _clusterctl_complete KIND WORD INVENTORY: fills COMPREPLY.
_clusterctl_complete() {
  local IFS=$'\n' prefix='' word=$2
  case $1 in
    inventory)
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -d -- "$word") $(compgen -f -X '!*.yaml' -- "$word") $(compgen -f -X '!*.yml' -- "$word")) ;;
    file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$word")) ;;
    dir) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$word")) ;;
    names)
      [ -n "$3" ] || return 0
      case $word in *,*) prefix=${word%,*},; word=${word##*,} ;; esac
      case $word in '!'*) prefix+='!'; word=${word#!} ;; esac
      COMPREPLY=($(compgen -P "$prefix" -W "$("${COMP_WORDS[0]}" __complete-names "$3" 2>/dev/null)" -- "$word")) ;;
    tags | roles | checks)
      case $word in *,*) prefix=${word%,*},; word=${word##*,} ;; esac
      COMPREPLY=($(compgen -P "$prefix" -W "$("${COMP_WORDS[0]}" __complete-names --kind "$1" ${3:+"$3"} 2>/dev/null)" -- "$word")) ;;
    command) COMPREPLY=($(compgen -c -- "$word")) ;;
  esac
}

_clusterctl() {
  local cur=${COMP_WORDS[COMP_CWORD]} path='' inventory='' expecting='' word i npos=0 after=-1
  local subcommands options values positionals
  _clusterctl_spec ''
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    if [ -n "$expecting" ]; then expecting=''; continue; fi
    if [ $after -ge 0 ]; then after=$((after + 1)); continue; fi
    case $word in
      --) after=0 ;;
      -*=*) ;;
      -*) case $values in *" $word:"*) expecting=${values#*" $word:"}; expecting=${expecting%% *} ;; esac ;;
      *)
        if [ $npos -eq 0 ] && [[ " $subcommands " == *" $word "* ]]; then
          path=${path:+$path }$word
          _clusterctl_spec "$path"
        else
          npos=$((npos + 1))
          case $word in *.yaml | *.yml) [ -n "$inventory" ] || inventory=$word ;; esac
        fi ;;
    esac
  done
  case $inventory in '~/'*) inventory=$HOME/${inventory#'~/'} ;; esac
  COMPREPLY=()
  if [ -n "$expecting" ]; then _clusterctl_complete "$expecting" "$cur" "$inventory"; return 0; fi
  if [ $after -ge 0 ]; then  # after --: a command and its arguments
    [ $after -eq 0 ] && _clusterctl_complete command "$cur" || _clusterctl_complete file "$cur"
    return 0
  fi
  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$options" -- "$cur")); return 0; fi
  if [ -n "$subcommands" ]; then COMPREPLY=($(compgen -W "$subcommands" -- "$cur")); return 0; fi
  set -- $positionals
  local kind=''
  if [ $npos -lt $# ]; then shift $npos; kind=$1; elif [ $# -gt 0 ]; then kind=${!#}; [[ $kind == *... ]] || kind=''; fi
  _clusterctl_complete "${kind%...}" "$cur" "$inventory"
  return 0
}
complete -F _clusterctl clusterctl
)BASH";

std::string BashSpecFunction(const std::vector<CommandSpec>& specs) {
  std::ostringstream out;
  out << "# _clusterctl_spec PATH: the subcommands and options of `clusterctl PATH`, the\n"
      << "# kinds of the options' values and of its positionals.\n"
      << "_clusterctl_spec() {\n  case $1 in\n";
  for (const CommandSpec& s : specs) {
    out << "    " << Quote(s.path) << ")\n"
        << "      subcommands=" << Quote(Words(s.subcommands, First)) << "\n"
        << "      options=" << Quote(Words(s.options, First)) << "\n"
        << "      values=" << Quote(" " + Words(s.values, [](const auto& v) { return v.first + ":" + v.second; }) + " ")
        << "\n      positionals=" << Quote(Join(s.positionals, " ")) << " ;;\n";
  }
  out << "  esac\n}\n";
  return out.str();
}

constexpr const char* kZshEngine = R"ZSH(
# _clusterctl_complete KIND INVENTORY
_clusterctl_complete() {
  local -a names expl
  case $1 in
    inventory) _files -g '*.(yaml|yml)' ;;
    file) _files ;;
    dir) _files -/ ;;
    names)
      [[ -n $2 ]] || return 1
      names=(${(f)"$(${words[1]} __complete-names $2 2>/dev/null)"})
      compset -P '*,'
      compset -P '!'
      _wanted names expl 'host or group' compadd -a names ;;
    tags | roles | checks)
      names=(${(f)"$(${words[1]} __complete-names --kind $1 $2 2>/dev/null)"})
      compset -P '*,'
      _wanted $1 expl $1 compadd -a names ;;
    command) _command_names -e ;;
    *) _message value ;;
  esac
}

_clusterctl() {
  local cmdpath='' inventory='' expecting='' word kind
  local -i i npos=0 after=-1
  local -a subcommands options positionals
  local -A values
  _clusterctl_spec ''
  for (( i = 2; i < CURRENT; i++ )); do
    word=${words[i]}
    if [[ -n $expecting ]]; then expecting=''; continue; fi
    if (( after >= 0 )); then (( after++ )); continue; fi
    case $word in
      --) after=0 ;;
      -*=*) ;;
      -*) expecting=${values[$word]} ;;
      *)
        if (( npos == 0 && ${subcommands[(I)${(b)word}:*]} )); then
          cmdpath=${cmdpath:+$cmdpath }$word
          _clusterctl_spec $cmdpath
        else
          (( npos++ ))
          [[ -z $inventory && ( $word == *.yaml || $word == *.yml ) ]] && inventory=${~word}
        fi ;;
    esac
  done
  if [[ -n $expecting ]]; then _clusterctl_complete $expecting $inventory; return; fi
  if (( after >= 0 )); then  # after --: a command and its arguments
    (( after == 0 )) && _clusterctl_complete command || _files
    return
  fi
  if [[ $PREFIX == -* ]]; then _describe -t options option options; return; fi
  if (( $#subcommands )); then _describe -t commands command subcommands; return; fi
  if (( npos < $#positionals )); then
    kind=${positionals[npos + 1]}
  elif [[ ${positionals[-1]} == *... ]]; then
    kind=${positionals[-1]}
  fi
  _clusterctl_complete ${kind%...} $inventory
}
)ZSH";

std::string ZshSpecFunction(const std::vector<CommandSpec>& specs) {
  std::ostringstream out;
  out << "# _clusterctl_spec PATH: the subcommands and options of `clusterctl PATH`, with\n"
      << "# their descriptions, the kinds of the options' values and of its positionals.\n"
      << "_clusterctl_spec() {\n  case $1 in\n";
  for (const CommandSpec& s : specs) {
    out << "    " << Quote(s.path) << ")\n"
        << "      subcommands=(" << Words(s.subcommands, Described) << ")\n"
        << "      options=(" << Words(s.options, Described) << ")\n"
        << "      values=(" << Words(s.values, [](const auto& v) { return v.first + " " + v.second; }) << ")\n"
        << "      positionals=(" << Join(s.positionals, " ") << ") ;;\n";
  }
  out << "  esac\n}\n";
  return out.str();
}

}  // namespace

std::string BashCompletion(const CLI::App& app) {
  return "# bash completion for clusterctl. Generated by 'clusterctl __generate bash'\n"
         "# from the command definitions: do not edit.\n" +
         BashSpecFunction(AllSpecs(app)) + kBashEngine;
}

std::string ZshCompletion(const CLI::App& app) {
  return "#compdef clusterctl\n"
         "# zsh completion for clusterctl. Generated by 'clusterctl __generate zsh'\n"
         "# from the command definitions: do not edit.\n" +
         ZshSpecFunction(AllSpecs(app)) + kZshEngine + "\n_clusterctl \"$@\"\n";
}

}  // namespace clusterctl
