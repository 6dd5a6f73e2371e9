#ifndef FABRIC_FLOW_SIZE_CDF_H
#define FABRIC_FLOW_SIZE_CDF_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \brief A flow-size distribution given as points of its CDF, in the format of HPCC's
 * traffic_gen (github.com/alibaba-edu/High-Precision-Congestion-Control, traffic_gen/): one
 * "size_bytes cdf_percent" pair per line, sizes and percents strictly increasing, the first
 * percent 0 and the last 100. Between two points the CDF is linear, as traffic_gen's
 * custom_rand.py draws it, so a size is drawn by inverting that piecewise-linear function.
 *
 * Lines starting with '#' and blank lines are comments (the shipped files name their source
 * there; HPCC's own files have none).
 */
class FlowSizeCdf
{
  public:
    /// Reads \p file; throws ConfigError naming the file, the line and the field at fault.
    static FlowSizeCdf Read(const std::string& file);
    /// From points (size_bytes, percent), checked as Read checks a file (\p origin names it).
    static FlowSizeCdf FromPoints(std::vector<std::pair<double, double>> points,
                                  const std::string& origin);

    /// Mean size in bytes of the piecewise-linear distribution (traffic_gen's getAvg).
    double MeanBytes() const;
    /// The size at probability \p u in [0, 1] (the inverse CDF, linear between points).
    double Quantile(double u) const;
    /// A flow size in bytes for a uniform draw \p u in [0, 1): Quantile rounded, at least 1.
    uint64_t Sample(double u) const;
    /// P(size <= \p bytes) in [0, 1].
    double Probability(double bytes) const;

    const std::vector<std::pair<double, double>>& Points() const
    {
        return m_points;
    }

  private:
    std::vector<std::pair<double, double>> m_points; ///< (bytes, percent)
};

/// The CDFs shipped in contrib/fabric/workloads/: websearch, hadoop, alistorage, googlerpc.
const std::vector<std::string>& ShippedCdfNames();

/// Where shipped CDF \p name lives below the source tree: "contrib/fabric/workloads/NAME.txt".
std::string ShippedCdfPath(const std::string& name);

} // namespace ns3

#endif
