// The type of a value in an Ansible INI inventory (`key=value`), as
// `inventory import` writes it. Ansible keeps INI values strings unless they
// are plainly something else, and so does the import:
//  - quoted ('...' or "..."): the text inside the quotes, a string ("007");
//  - true/false/yes/no, in any case: a boolean;
//  - a plain decimal integer (an optional '-', no leading zero, within 64
//    bits): an integer;
//  - anything else: the text as written, a string (23.10, 1e3, 0x10, 010,
//    on, 22.05.8-4+deb12u3).
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

namespace clusterctl {

nlohmann::json IniValue(std::string_view raw);

}  // namespace clusterctl
