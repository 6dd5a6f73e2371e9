#include "config/units.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

namespace ns3
{

namespace
{

/// Splits "12.5MiB" into 12.5 and "MiB"; rejects signs, empty numbers and trailing junk.
bool
SplitNumberUnit(const std::string& text, double* number, std::string* unit)
{
    size_t i = 0;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
    {
        ++i;
    }
    size_t start = i;
    bool digits = false;
    bool dot = false;
    while (i < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[i])) || (text[i] == '.' && !dot)))
    {
        digits |= std::isdigit(static_cast<unsigned char>(text[i])) != 0;
        dot |= text[i] == '.';
        ++i;
    }
    if (!digits)
    {
        return false;
    }
    *number = std::stod(text.substr(start, i - start));
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
    {
        ++i;
    }
    size_t end = text.size();
    while (end > i && std::isspace(static_cast<unsigned char>(text[end - 1])))
    {
        --end;
    }
    *unit = text.substr(i, end - i);
    return std::isfinite(*number);
}

} // namespace

std::optional<uint64_t>
ParseCount(const std::string& text)
{
    if (text.empty())
    {
        return std::nullopt;
    }
    uint64_t v = 0;
    for (char c : text)
    {
        if (!std::isdigit(static_cast<unsigned char>(c)))
        {
            return std::nullopt;
        }
        uint64_t digit = static_cast<uint64_t>(c - '0');
        if (v > (UINT64_MAX - digit) / 10)
        {
            return std::nullopt;
        }
        v = v * 10 + digit;
    }
    return v;
}

std::optional<uint64_t>
ParseBytes(const std::string& text)
{
    double n;
    std::string unit;
    if (!SplitNumberUnit(text, &n, &unit))
    {
        return std::nullopt;
    }
    double mult;
    if (unit.empty() || unit == "B")
    {
        mult = 1;
    }
    else if (unit == "KiB")
    {
        mult = 1024.0;
    }
    else if (unit == "MiB")
    {
        mult = 1024.0 * 1024;
    }
    else if (unit == "GiB")
    {
        mult = 1024.0 * 1024 * 1024;
    }
    else if (unit == "KB" || unit == "kB")
    {
        mult = 1e3;
    }
    else if (unit == "MB")
    {
        mult = 1e6;
    }
    else if (unit == "GB")
    {
        mult = 1e9;
    }
    else
    {
        return std::nullopt;
    }
    double v = n * mult;
    if (v > 1.8e19 || v != std::floor(v))
    {
        return std::nullopt;
    }
    return static_cast<uint64_t>(v);
}

std::optional<DataRate>
ParseDataRate(const std::string& text)
{
    double n;
    std::string unit;
    if (!SplitNumberUnit(text, &n, &unit))
    {
        return std::nullopt;
    }
    // Accept both ns-3 spellings (Gbps, GBps) and the slash forms people write (Gb/s, GB/s).
    double bitsPerUnit;
    std::string prefix;
    if (unit.size() >= 3 && unit.compare(unit.size() - 3, 3, "bps") == 0)
    {
        bitsPerUnit = 1;
        prefix = unit.substr(0, unit.size() - 3);
    }
    else if (unit.size() >= 3 && unit.compare(unit.size() - 3, 3, "b/s") == 0)
    {
        bitsPerUnit = 1;
        prefix = unit.substr(0, unit.size() - 3);
    }
    else if (unit.size() >= 3 && unit.compare(unit.size() - 3, 3, "Bps") == 0)
    {
        bitsPerUnit = 8;
        prefix = unit.substr(0, unit.size() - 3);
    }
    else if (unit.size() >= 3 && unit.compare(unit.size() - 3, 3, "B/s") == 0)
    {
        bitsPerUnit = 8;
        prefix = unit.substr(0, unit.size() - 3);
    }
    else
    {
        return std::nullopt;
    }
    double mult;
    if (prefix.empty())
    {
        mult = 1;
    }
    else if (prefix == "k" || prefix == "K")
    {
        mult = 1e3;
    }
    else if (prefix == "M")
    {
        mult = 1e6;
    }
    else if (prefix == "G")
    {
        mult = 1e9;
    }
    else if (prefix == "T")
    {
        mult = 1e12;
    }
    else
    {
        return std::nullopt;
    }
    double bps = n * mult * bitsPerUnit;
    if (bps < 0.5 || bps > 1.8e19) // below 0.5 it would round to a rate of 0 (divides by it)
    {
        return std::nullopt;
    }
    return DataRate(static_cast<uint64_t>(std::llround(bps)));
}

std::optional<Time>
ParseTime(const std::string& text)
{
    double n;
    std::string unit;
    if (!SplitNumberUnit(text, &n, &unit))
    {
        return std::nullopt;
    }
    double ps;
    if (unit == "s")
    {
        ps = n * 1e12;
    }
    else if (unit == "ms")
    {
        ps = n * 1e9;
    }
    else if (unit == "us")
    {
        ps = n * 1e6;
    }
    else if (unit == "ns")
    {
        ps = n * 1e3;
    }
    else if (unit == "ps")
    {
        ps = n;
    }
    else
    {
        return std::nullopt;
    }
    if (ps > 9.2e18)
    {
        return std::nullopt;
    }
    return PicoSeconds(static_cast<int64_t>(std::llround(ps)));
}

std::optional<double>
ParseLengthMetres(const std::string& text)
{
    double n;
    std::string unit;
    // The delay of the cable (5 ns/m) must be a Time: picoseconds in 64 bits.
    if (!SplitNumberUnit(text, &n, &unit) || unit != "m" || n * 5000.0 > 9.2e18)
    {
        return std::nullopt;
    }
    return n;
}

Time
CableDelay(double metres)
{
    return PicoSeconds(static_cast<int64_t>(std::llround(metres * 5000.0)));
}

std::string
FormatBytes(uint64_t bytes)
{
    char buf[64];
    if (bytes >= (1ULL << 30))
    {
        std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / double(1ULL << 30));
    }
    else if (bytes >= (1ULL << 20))
    {
        std::snprintf(buf, sizeof buf, "%.2f MiB", bytes / double(1ULL << 20));
    }
    else if (bytes >= 1024)
    {
        std::snprintf(buf, sizeof buf, "%.2f KiB", bytes / 1024.0);
    }
    else
    {
        std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
    }
    return buf;
}

namespace
{

/// \p value in the largest of \p units (scale, suffix; largest first) that needs at most three
/// decimals, trailing zeros dropped; \p zero when the value is 0.
std::string
ScaledText(uint64_t value,
           const std::vector<std::pair<uint64_t, const char*>>& units,
           const char* zero)
{
    if (value == 0)
    {
        return zero;
    }
    for (const auto& [scale, suffix] : units)
    {
        if (value < scale || (value % scale) * 1000 % scale != 0)
        {
            continue;
        }
        std::string text = std::to_string(value / scale);
        uint64_t millis = (value % scale) * 1000 / scale;
        if (millis != 0)
        {
            // millis < 1000: three digits, zero-padded (".050"), trailing zeros dropped below.
            std::string f = std::to_string(1000 + millis);
            f[0] = '.';
            f.erase(f.find_last_not_of('0') + 1);
            text += f;
        }
        return text + suffix;
    }
    return std::to_string(value) + units.back().second;
}

} // namespace

std::string
BytesText(uint64_t bytes)
{
    for (const auto& [scale, suffix] : {std::make_pair(1ULL << 30, "GiB"),
                                        std::make_pair(1ULL << 20, "MiB"),
                                        std::make_pair(1ULL << 10, "KiB")})
    {
        if (bytes != 0 && bytes % scale == 0)
        {
            return std::to_string(bytes / scale) + suffix;
        }
    }
    return std::to_string(bytes) + "B";
}

std::string
TimeText(Time t)
{
    int64_t ps = t.GetPicoSeconds();
    std::string sign = ps < 0 ? "-" : "";
    uint64_t magnitude = ps < 0 ? uint64_t(-(ps + 1)) + 1 : uint64_t(ps);
    return sign + ScaledText(magnitude,
                             {{1000000000000ULL, "s"},
                              {1000000000ULL, "ms"},
                              {1000000ULL, "us"},
                              {1000ULL, "ns"},
                              {1ULL, "ps"}},
                             "0ns");
}

std::string
RateText(DataRate rate)
{
    return ScaledText(rate.GetBitRate(),
                      {{1000000000000ULL, "Tbps"},
                       {1000000000ULL, "Gbps"},
                       {1000000ULL, "Mbps"},
                       {1000ULL, "kbps"},
                       {1ULL, "bps"}},
                      "0bps");
}

std::string
NumberText(double v)
{
    char buf[40];
    // From %g's six digits up, so that round numbers stay plain ("10", not "1e+01").
    for (int precision = 6; precision <= 17; ++precision)
    {
        std::snprintf(buf, sizeof buf, "%.*g", precision, v);
        if (std::strtod(buf, nullptr) == v)
        {
            break;
        }
    }
    return buf;
}

} // namespace ns3
