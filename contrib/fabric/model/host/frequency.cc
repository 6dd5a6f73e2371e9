#include "frequency.h"

#include <cmath>
#include <cstdlib>

namespace ns3
{

ATTRIBUTE_HELPER_CPP(Frequency);

bool
Frequency::Parse(const std::string& text, Frequency* out)
{
    const char* begin = text.c_str();
    char* end = nullptr;
    double value = std::strtod(begin, &end);
    if (end == begin || !(value >= 0) || !std::isfinite(value))
    {
        return false;
    }
    std::string unit(end);
    double scale = 0;
    if (unit == "Hz")
    {
        scale = 1;
    }
    else if (unit == "kHz")
    {
        scale = 1e3;
    }
    else if (unit == "MHz")
    {
        scale = 1e6;
    }
    else if (unit == "GHz")
    {
        scale = 1e9;
    }
    else
    {
        return false;
    }
    double hertz = std::round(value * scale);
    if (hertz > 1e15)
    {
        return false;
    }
    *out = Frequency(static_cast<uint64_t>(hertz));
    return true;
}

Time
Frequency::Cycles(uint64_t cycles) const
{
    if (m_hertz == 0 || cycles == 0)
    {
        return Time(0);
    }
    // cycles / f seconds in ps, rounded half up, in integers (exact for any cycle count the
    // pipelines have).
    unsigned __int128 num = static_cast<unsigned __int128>(cycles) * 1000000000000ull;
    unsigned __int128 ps = (2 * num + m_hertz) / (2 * static_cast<unsigned __int128>(m_hertz));
    return PicoSeconds(static_cast<int64_t>(ps));
}

std::ostream&
operator<<(std::ostream& os, const Frequency& f)
{
    uint64_t hz = f.GetHertz();
    if (hz != 0 && hz % 1000000 == 0)
    {
        return os << hz / 1000000 << "MHz";
    }
    if (hz != 0 && hz % 1000 == 0)
    {
        return os << hz / 1000 << "kHz";
    }
    return os << hz << "Hz";
}

std::istream&
operator>>(std::istream& is, Frequency& f)
{
    std::string text;
    is >> text;
    if (!Frequency::Parse(text, &f))
    {
        is.setstate(std::ios_base::failbit);
    }
    return is;
}

bool
operator==(const Frequency& a, const Frequency& b)
{
    return a.GetHertz() == b.GetHertz();
}

} // namespace ns3
