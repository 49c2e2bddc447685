#include <pk/core/data_files.hpp>

#include <filesystem>
#include <system_error>

namespace pk {

std::string data_file(const std::string& name, const std::string& build_tree_path) {
  std::error_code error;
  // Linux: the executable itself, whatever the working directory or argv[0].
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    // PK_DATADIR_FROM_BINDIR: share/portablekernels seen from the install's bin directory.
    const auto installed = exe.parent_path() / PK_DATADIR_FROM_BINDIR / name;
    if (std::filesystem::is_regular_file(installed, error)) return installed.lexically_normal().string();
  }
  return build_tree_path;
}

}  // namespace pk
