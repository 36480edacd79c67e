#pragma once
// Reading a YAML config file without trusting it: the file is read by read_input_file (regular
// files only, at most kMaxYamlBytes: yaml-cpp takes seconds per MB and gigabytes for tens of MB),
// and a key given twice in one mapping is an error naming both places (yaml-cpp would silently
// keep the first).
#include <cstdint>
#include <string>

#include <yaml-cpp/yaml.h>

#include "configfile/input_file.h"

namespace bnsim {

// Config files are a few KB; 1 MiB parses in well under a second.
constexpr uint64_t kMaxYamlBytes = kMaxConfigBytes;

// Throws ConfigError naming the file (and line:column for syntax errors and duplicate keys).
// what says what the file should be, e.g. "a YAML run config".
YAML::Node load_yaml_file(const std::string& path, const std::string& what);
// The same in two steps, for a caller that keys a cache on the text: the file's text (the same
// checks before reading), then the text parsed as the file at `path`.
std::string read_yaml_text(const std::string& path, const std::string& what);
YAML::Node parse_yaml_text(const std::string& text, const std::string& path, const std::string& what);

// Throws ConfigError if a mapping anywhere in the tree has a key twice; origin prefixes the
// message and, when it is a file, the line:column of the second occurrence follows it.
void reject_duplicate_keys(const YAML::Node& root, const std::string& origin, bool origin_is_file);

}  // namespace bnsim
