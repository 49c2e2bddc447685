#pragma once
// Data files read at run time (the BesselK reference table, the GBEES plotting script) are
// installed under <prefix>/share/portablekernels and found relative to the running program,
// so that an installed tree works from any directory and after it is moved (Spack, tarballs).
#include <string>

namespace pk {

// The installed copy of `name` (a path relative to share/portablekernels) when the running
// executable sits in an install tree that has it; else `build_tree_path` (the source tree's
// copy, compiled into programs that run from the build tree).
std::string data_file(const std::string& name, const std::string& build_tree_path);

}  // namespace pk
