#ifndef FABRIC_FREQUENCY_H
#define FABRIC_FREQUENCY_H

#include "ns3/attribute-helper.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <iostream>
#include <string>

namespace ns3
{

/**
 * \brief A clock frequency in whole hertz, written with its unit: "322MHz", "1.5GHz", "100kHz",
 * "1000Hz" (an ns-3 attribute type, FrequencyValue).
 *
 * What a NIC pipeline stage of N cycles takes: Cycles(N), N clock periods rounded to the
 * nearest picosecond once (not N rounded periods), so 9 cycles at 322 MHz are 27 950 ps.
 */
class Frequency
{
  public:
    Frequency() = default;

    explicit Frequency(uint64_t hertz)
        : m_hertz(hertz)
    {
    }

    /// Parses "<number><unit>", unit Hz, kHz, MHz or GHz; false when \p text is not one.
    static bool Parse(const std::string& text, Frequency* out);

    uint64_t GetHertz() const
    {
        return m_hertz;
    }

    /// Time of \p cycles clock periods, to the nearest picosecond (0 when the clock is 0 Hz).
    Time Cycles(uint64_t cycles) const;

  private:
    uint64_t m_hertz = 0;
};

std::ostream& operator<<(std::ostream& os, const Frequency& f);
std::istream& operator>>(std::istream& is, Frequency& f);

bool operator==(const Frequency& a, const Frequency& b);

ATTRIBUTE_HELPER_HEADER(Frequency);

} // namespace ns3

#endif
