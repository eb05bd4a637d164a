#pragma once

#include <string>

namespace headroom::test {

/// Issue 35, item 4: one model file that every view must number and name alike (the GUI's tree, the
/// command line's table and errors, the PDF's table and errors). Its entries, with the number a user
/// reads in the GUI's tree (position in the file counted from 1, a block's layers after a dot):
///   1    layers[0]            Linear "stem" (16 -> 32)
///   2    layers[1]            ReLU, no name: automatic name "1" (its 0-based index), so it is named
///                             "2 (ReLU)" in sentences, never "1"
///   3    layers[2]            Repeat "blk" x 2
///   3.1  layers[2].layers[0]  Linear "inner" (32 -> 32): "blk.0.inner" and "blk.1.inner", alike,
///                             one line "blk.0–1.inner × 2" in the tables
///   3.2  layers[2].layers[1]  ReLU, no name ("blk.0.1", "blk.1.1")
///   4    layers[3]            Linear "fc": invalid when `invalidFc`, its in_features 64 against the
///                             32 features the block hands it
///   5    layers[4]            Linear "head" (-> 10), blocked behind "fc" when that is invalid
/// Under the old numbering the tables counted lines: "blk.0–1.inner" was line 3 (as here, by chance)
/// but "fc" line 5 and "head" 6, against 4 and 5 in the GUI; errors said only "layers[3]".
inline std::string numberedLayersFile(bool invalidFc)
{
    return std::string(R"({
  "format": "headroom-model", "version": 1,
  "name": "Numbered layers",
  "input": {"shape": [16]},
  "layers": [
    {"type": "Linear", "name": "stem", "out_features": 32},
    {"type": "ReLU"},
    {"type": "Repeat", "name": "blk", "times": 2, "layers": [
      {"type": "Linear", "name": "inner", "out_features": 32},
      {"type": "ReLU"}
    ]},
    {"type": "Linear", "name": "fc", )")
        + (invalidFc ? R"("in_features": 64, )" : "") + R"("out_features": 32},
    {"type": "Linear", "name": "head", "out_features": 10}
  ]
}
)";
}

/// What the core says about "fc" when it is invalid, and how the command line and the PDF write it:
/// its number 4, its name, and its JSON path in the file.
inline const char* const kInvalidFcReason = "in_features is 64 but the input has 32 features (its last axis)";

} // namespace headroom::test
