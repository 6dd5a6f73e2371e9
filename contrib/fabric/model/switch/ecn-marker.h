#ifndef FABRIC_ECN_MARKER_H
#define FABRIC_ECN_MARKER_H

#include <cstdint>

namespace ns3
{

/**
 * \brief RED-style ECN marking curve of an egress queue (the DCQCN congestion point).
 *
 * Probability 0 below Kmin, rising linearly to Pmax at Kmax, 1 above Kmax.
 */
struct EcnCurve
{
    uint64_t kmin = 0;
    uint64_t kmax = 0;
    double pmax = 0;

    double Probability(uint64_t queueBytes) const
    {
        if (queueBytes <= kmin)
        {
            return 0.0;
        }
        if (queueBytes > kmax)
        {
            return 1.0;
        }
        if (kmax == kmin)
        {
            return pmax;
        }
        return pmax * static_cast<double>(queueBytes - kmin) / static_cast<double>(kmax - kmin);
    }
};

} // namespace ns3

#endif
