#include <pk/core/session.hpp>
#include <pk/core/space_selection.hpp>

namespace pk {

Session::Session(const std::vector<std::string>& kokkos_args) : args_{"pk"} {
  require_spaces_startable();
  args_.insert(args_.end(), kokkos_args.begin(), kokkos_args.end());
  for (auto& arg : args_) argv_.push_back(arg.data());
  argv_.push_back(nullptr);
  argc_ = static_cast<int>(args_.size());
  guard_ = std::make_unique<Kokkos::ScopeGuard>(argc_, argv_.data());
}

}  // namespace pk
