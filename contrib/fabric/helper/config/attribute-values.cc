#include "config/attribute-values.h"

#include "config/units.h"
#include "host/frequency.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/queue-size.h"

#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

/// True when the whole of \p text reads as one T (what ns-3's stream-based parsers accept).
template <typename T>
bool
ReadsAs(const std::string& text)
{
    std::istringstream iss(text);
    T v;
    iss >> v;
    return !iss.fail() && iss.eof();
}

/// Whether \p normalized (in the form ns-3 parses) is within the range of the attribute's
/// checker (a uint8_t, a bounded time, ...): ns-3 would refuse it only when the attribute is
/// set, far from the line of the file that gave it. Otherwise \p error says what the range is.
bool
WithinRange(const TypeId::AttributeInformation& info,
            const std::string& value,
            const std::string& normalized,
            std::string* error)
{
    Ptr<AttributeValue> v = info.checker->Create();
    if (v->DeserializeFromString(normalized, info.checker) && info.checker->Check(*v))
    {
        return true;
    }
    // Integer checkers describe themselves as "uint32_t 0:4294967295".
    std::string range = info.checker->GetUnderlyingTypeInformation();
    size_t space = range.find(' ');
    size_t colon = range.rfind(':');
    if (space != std::string::npos && colon != std::string::npos && colon > space)
    {
        range = range.substr(space + 1, colon - space - 1) + ".." + range.substr(colon + 1);
    }
    *error = "'" + value + "' is out of range: must be " + range;
    return false;
}

/// "0bps", "0Gbps", "0.0Gb/s": zero in a unit ParseDataRate knows.
bool
IsZeroRate(const std::string& value)
{
    size_t digits = value.find_first_not_of("0.");
    return digits != 0 && digits != std::string::npos && ParseDataRate("1" + value.substr(digits));
}

/// NormalizeAttributeValue without the range check: the spelling of \p value only.
bool
NormalizeSpelling(const TypeId::AttributeInformation& info,
                  const std::string& value,
                  std::string* normalized,
                  std::string* error)
{
    // Core types name themselves "ns3::TimeValue"; those declared with ATTRIBUTE_HELPER_HEADER
    // (DataRate, QueueSize) "DataRateValue": compare without the namespace.
    std::string type = info.checker->GetValueTypeName();
    if (type.rfind("ns3::", 0) == 0)
    {
        type = type.substr(5);
    }
    auto bad = [&](const std::string& expected) {
        *error = "bad value '" + value + "': expected " + expected;
        return false;
    };
    *normalized = value;
    if (type == "DoubleValue")
    {
        return ReadsAs<double>(value) ? true : bad("a number");
    }
    if (type == "UintegerValue")
    {
        return (ReadsAs<uint64_t>(value) && value[0] != '-') ? true : bad("a non-negative integer");
    }
    if (type == "IntegerValue")
    {
        return ReadsAs<int64_t>(value) ? true : bad("an integer");
    }
    if (type == "BooleanValue")
    {
        if (value == "true" || value == "false" || value == "1" || value == "0")
        {
            return true;
        }
        return bad("true or false");
    }
    if (type == "TimeValue")
    {
        auto t = ParseTime(value);
        if (!t)
        {
            return bad("a time such as 150ns or 2us");
        }
        *normalized = std::to_string(t->GetPicoSeconds()) + "ps";
        return true;
    }
    if (type == "DataRateValue")
    {
        auto r = ParseDataRate(value);
        if (!r && IsZeroRate(value) && info.initialValue->SerializeToString(info.checker) == "0bps")
        {
            // A rate of 0 is refused (most rates divide by it) except where the attribute itself
            // starts at 0, its documented "none" (DcqcnCongestionControl::RateScaleReference).
            *normalized = "0bps";
            return true;
        }
        if (!r)
        {
            return bad("a rate such as 400Gbps or 50GB/s");
        }
        *normalized = std::to_string(r->GetBitRate()) + "bps";
        return true;
    }
    if (type == "QueueSizeValue")
    {
        auto b = ParseBytes(value);
        if (!b || *b > 0xFFFFFFFFull)
        {
            return bad("a byte size up to 4GiB such as 64KiB or 4MiB");
        }
        *normalized = std::to_string(*b) + "B";
        return true;
    }
    if (type == "EnumValue")
    {
        std::string names = info.checker->GetUnderlyingTypeInformation();
        std::istringstream iss(names);
        for (std::string n; std::getline(iss, n, '|');)
        {
            if (n == value)
            {
                return true;
            }
        }
        return bad("one of " + names);
    }
    if (type == "StringValue")
    {
        return true;
    }
    if (type == "FrequencyValue")
    {
        Frequency f;
        return Frequency::Parse(value, &f) ? true : bad("a frequency such as 322MHz or 1.5GHz");
    }
    // Other types: let the checker try (they report failure rather than abort).
    Ptr<AttributeValue> v = info.checker->Create();
    if (!v->DeserializeFromString(value, info.checker))
    {
        return bad(info.checker->GetUnderlyingTypeInformation());
    }
    return true;
}

} // namespace

bool
NormalizeAttributeValue(const std::string& name,
                        const std::string& value,
                        std::string* normalized,
                        std::string* error)
{
    size_t sep = name.rfind("::");
    TypeId tid;
    TypeId::AttributeInformation info;
    if (sep == std::string::npos || !TypeId::LookupByNameFailSafe(name.substr(0, sep), &tid) ||
        !tid.LookupAttributeByName(name.substr(sep + 2), &info))
    {
        *error = "cannot set: no such ns-3 attribute (fabric-run --print-attributes lists them)";
        return false;
    }
    return NormalizeSpelling(info, value, normalized, error) &&
           WithinRange(info, value, *normalized, error);
}

TypeId::AttributeInformation
AttributeDefault(const std::string& name)
{
    size_t sep = name.rfind("::");
    TypeId tid;
    TypeId::AttributeInformation info;
    if (sep == std::string::npos || !TypeId::LookupByNameFailSafe(name.substr(0, sep), &tid) ||
        !tid.LookupAttributeByName(name.substr(sep + 2), &info))
    {
        throw std::invalid_argument("no ns-3 attribute " + name);
    }
    return info;
}

std::string
AttributeDefaultText(const std::string& name)
{
    TypeId::AttributeInformation info = AttributeDefault(name);
    Ptr<const AttributeValue> v = info.initialValue;
    if (auto size = DynamicCast<const QueueSizeValue>(v))
    {
        return std::to_string(size->Get().GetValue()) + "B";
    }
    if (auto time = DynamicCast<const TimeValue>(v))
    {
        return std::to_string(time->Get().GetPicoSeconds()) + "ps";
    }
    if (auto rate = DynamicCast<const DataRateValue>(v))
    {
        return std::to_string(rate->Get().GetBitRate()) + "bps";
    }
    if (auto number = DynamicCast<const DoubleValue>(v))
    {
        return NumberText(number->Get());
    }
    return v->SerializeToString(info.checker);
}

} // namespace ns3
