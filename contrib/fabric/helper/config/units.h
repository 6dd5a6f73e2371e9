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

/// Non-negative integers written in decimal digits only ("0", "4096"); nullopt for signs,
/// other characters, and values above 2^64 - 1 (which std::stoull would throw for).
std::optional<uint64_t> ParseCount(const std::string& text);

/// Byte sizes: "1500", "1500B", "64KiB", "4MiB", "1GiB", "100KB" (SI, 1000), "1.5MiB".
std::optional<uint64_t> ParseBytes(const std::string& text);

/// Data rates: "400Gbps", "400Gb/s", "50GBps", "50GB/s" (bytes, decimal), "100Mbps", "10bps".
std::optional<DataRate> ParseDataRate(const std::string& text);

/// Times: "1us", "500ns", "2.5ms", "1s", "100ps" (a bare number is rejected: units are required).
std::optional<Time> ParseTime(const std::string& text);

/// Cable lengths in metres: "30m", "2.5m", "300 m"; returns metres (at most 1.8e15 m, whose
/// delay still fits a Time).
std::optional<double> ParseLengthMetres(const std::string& text);

/// Propagation delay of a cable of the given length (5 ns per metre).
Time CableDelay(double metres);

/// Human-readable byte count for summaries ("1.00 MiB").
std::string FormatBytes(uint64_t bytes);

/**
 * The inverses of the parsers: values written as a scenario file writes them, exactly (each
 * reads back to the same value), for `fabric-run --help` and generated attribute values.
 */

/// "32MiB", "9KiB", "4154B": the largest binary unit that divides the count.
std::string BytesText(uint64_t bytes);

/// "100us", "18.6ns", "2.048ns", "0ns": the largest unit that needs at most three decimals.
std::string TimeText(Time t);

/// "400Gbps", "25.6Tbps", "40Mbps": as TimeText, in bits per second.
std::string RateText(DataRate rate);

/// The shortest decimal that reads back as exactly \p v: "0.2", "0.00390625", "1e-07".
std::string NumberText(double v);

} // namespace ns3

#endif
