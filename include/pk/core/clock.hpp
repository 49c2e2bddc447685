#pragma once
// The wall-clock date that records and the tuning cache carry.
#include <string>

namespace pk {

// The current UTC time as ISO 8601, e.g. 2026-11-23T12:00:00Z.
std::string utc_timestamp();

}  // namespace pk
