#pragma once
// Starting another program without a shell: the arguments go to it as they are, so no file
// name or option value can run a command. And the environment a program starts with: its
// OpenMP binding and when its GPU kernels load.
#include <string>
#include <vector>

namespace pk {

// Runs argv[0] (searched on PATH) with argv and waits for it. Returns its exit status, or
// 128 + the signal number when a signal ended it. Throws pk::Error when it cannot start.
int run_program(const std::vector<std::string>& argv);

// Whether argv[0] starts and exits with status 0, its output discarded: a probe, such as
// {"python3", "-c", "import matplotlib"}.
bool program_succeeds(const std::vector<std::string>& argv);

// Binds OpenMP threads one to a hardware thread, spread over the CPUs (OMP_PROC_BIND=spread,
// OMP_PLACES=threads) where the user set neither variable and no MPI launcher started the
// program (it binds ranks, or was told not to): the first call in main(). The
// OpenMP runtime reads its environment when it loads, before main(), so the program starts
// itself again with both set (execv; no shell); if it cannot, it runs unbound.
void bind_openmp_threads_by_default(char** argv);

// Loads every GPU kernel when the device starts, not at its first launch (CUDA's lazy
// loading, its default since 12.2, puts each kernel's load inside the first steps of a timed
// run), unless the user set CUDA_MODULE_LOADING: the first call in main(), before MPI or
// Kokkos can start the device. For a program whose GPU work is its own kernels: one linked
// to cuBLAS would load all of that library's kernels too.
void load_gpu_kernels_at_start();

// "spread/threads (set by pk)", "close/cores (the user's)", or "unset (the runtime's default)":
// what the records say of the binding.
std::string openmp_binding();

// OMP_WAIT_POLICY as the records say it ("active", or "unset (the runtime's default)"): how
// idle OpenMP threads wait moved a CPU kernel of short parallel regions by a quarter
// (perf/results/h100/omp-wait-policy).
std::string openmp_wait_policy();

}  // namespace pk
