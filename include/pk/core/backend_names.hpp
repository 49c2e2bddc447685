#pragma once
// The backends by their command-line names: free of Kokkos, for option parsers that the fuzz
// targets build without it.
#include <string>

namespace pk {

// Every backend PortableKernels has, by command-line name, host first. A build holds OpenMP
// and at most one GPU backend (Kokkos builds one device backend at a time).
inline constexpr const char* backend_names[] = {"openmp", "cuda", "hip"};

// "openmp, cuda, hip": the names that --space takes (besides lists of them and "all").
inline std::string backend_choices() {
  std::string choices;
  for (const char* name : backend_names) choices += (choices.empty() ? "" : ", ") + std::string(name);
  return choices;
}

}  // namespace pk
