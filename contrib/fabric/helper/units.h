#ifndef FABRIC_UNITS_H
#define FABRIC_UNITS_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ns3
{

/**
 * Parsers for the unit-bearing values users write in scenario and topology files.
 * Each returns std::nullopt on malformed or negative input; callers turn that into a
 * ConfigError naming file, line and key.
 */

/// Byte sizes: "1500", "1500B", "64KiB", "4MiB", "1GiB", "100KB" (SI, 1000), "1.5MiB".
std::optional<uint64_t> ParseBytes(const std::string& text);

/// Data rates: "400Gbps", "400Gb/s", "50GBps", "50GB/s" (bytes, decimal), "100Mbps", "10bps".
std::optional<DataRate> ParseDataRate(const std::string& text);

/// Times: "1us", "500ns", "2.5ms", "1s", "100ps" (a bare number is rejected: units are required).
std::optional<Time> ParseTime(const std::string& text);

/// Cable lengths in metres: "30m", "2.5m", "300 m"; returns metres.
std::optional<double> ParseLengthMetres(const std::string& text);

/// Propagation delay of a cable of the given length (5 ns per metre).
Time CableDelay(double metres);

/// Human-readable byte count for summaries ("1.00 MiB").
std::string FormatBytes(uint64_t bytes);

} // namespace ns3

#endif
