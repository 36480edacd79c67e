#pragma once
// The project's own inputs the tests read, all under the source tree that built the test binary
// (BNSIM_SOURCE_DIR, defined by tests/CMakeLists.txt). Defined once here because the test files
// are compiled in unity batches, where two files defining the same name would collide.
#include <string>

inline const std::string kSrc = BNSIM_SOURCE_DIR;
inline const std::string kDefault = kSrc + "/configs/default.yaml";  // the seed run config
inline const std::string kHw = kSrc + "/configs/hw/trn2.yaml";       // the trn2 hardware preset
inline const std::string kConfigs = kSrc + "/configs/";               // the config tree
inline const std::string kCal = kSrc + "/configs/calibration/";      // the calibration configs
