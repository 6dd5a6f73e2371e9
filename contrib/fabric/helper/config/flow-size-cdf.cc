#include "config/flow-size-cdf.h"

#include "config/config-error.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace ns3
{

namespace
{

/// Parses one field as a finite number or throws naming file, line and field.
double
Field(const std::string& text,
      const std::string& file,
      int line,
      const std::string& field,
      std::istringstream& in)
{
    std::string word;
    if (!(in >> word))
    {
        throw ConfigError(file, line, field, "missing (expected \"size_bytes cdf_percent\")");
    }
    char* end = nullptr;
    double v = std::strtod(word.c_str(), &end);
    if (end == word.c_str() || *end != '\0' || !std::isfinite(v))
    {
        throw ConfigError(file, line, field, "'" + word + "' is not a number in '" + text + "'");
    }
    return v;
}

} // namespace

FlowSizeCdf
FlowSizeCdf::Read(const std::string& file)
{
    std::ifstream in(file);
    if (!in)
    {
        throw ConfigError(file, 0, "cdf", "cannot open the CDF file");
    }
    std::vector<std::pair<double, double>> points;
    std::vector<int> lines;
    std::string text;
    for (int line = 1; std::getline(in, text); ++line)
    {
        if (!text.empty() && text.back() == '\r')
        {
            text.pop_back(); // files written on Windows
        }
        size_t first = text.find_first_not_of(" \t");
        if (first == std::string::npos || text[first] == '#')
        {
            continue;
        }
        std::istringstream fields(text);
        double bytes = Field(text, file, line, "size_bytes", fields);
        double percent = Field(text, file, line, "cdf_percent", fields);
        std::string extra;
        if (fields >> extra)
        {
            throw ConfigError(file, line, "cdf_percent", "unexpected '" + extra + "' after it");
        }
        if (bytes < 0)
        {
            throw ConfigError(file, line, "size_bytes", "must not be negative");
        }
        if (percent < 0 || percent > 100)
        {
            throw ConfigError(file, line, "cdf_percent", "must be within 0..100");
        }
        if (!points.empty() && bytes <= points.back().first)
        {
            throw ConfigError(file,
                              line,
                              "size_bytes",
                              "sizes must increase (line " + std::to_string(lines.back()) +
                                  " has " + std::to_string(uint64_t(points.back().first)) + ")");
        }
        if (!points.empty() && percent <= points.back().second)
        {
            throw ConfigError(file,
                              line,
                              "cdf_percent",
                              "percents must increase (line " + std::to_string(lines.back()) +
                                  " has a percent at least as large)");
        }
        if (points.empty() && percent != 0)
        {
            throw ConfigError(file, line, "cdf_percent", "the first point's percent must be 0");
        }
        points.emplace_back(bytes, percent);
        lines.push_back(line);
    }
    if (points.size() < 2)
    {
        throw ConfigError(file, 0, "cdf", "needs at least two points, from 0 to 100 percent");
    }
    if (points.back().second != 100)
    {
        throw ConfigError(file,
                          lines.back(),
                          "cdf_percent",
                          "the last point's percent must be 100");
    }
    FlowSizeCdf cdf;
    cdf.m_points = std::move(points);
    return cdf;
}

FlowSizeCdf
FlowSizeCdf::FromPoints(std::vector<std::pair<double, double>> points, const std::string& origin)
{
    bool ok = points.size() >= 2 && points.front().second == 0 && points.back().second == 100;
    for (size_t i = 1; ok && i < points.size(); ++i)
    {
        ok = points[i].first > points[i - 1].first && points[i].second > points[i - 1].second;
    }
    if (!ok || points.front().first < 0)
    {
        throw ConfigError(origin, 0, "cdf", "points must increase from 0 to 100 percent");
    }
    FlowSizeCdf cdf;
    cdf.m_points = std::move(points);
    return cdf;
}

double
FlowSizeCdf::MeanBytes() const
{
    // Uniform between neighbouring points: each segment contributes its midpoint times its mass.
    double sum = 0;
    for (size_t i = 1; i < m_points.size(); ++i)
    {
        sum += (m_points[i].first + m_points[i - 1].first) / 2 *
               (m_points[i].second - m_points[i - 1].second);
    }
    return sum / 100;
}

double
FlowSizeCdf::Quantile(double u) const
{
    double y = std::clamp(u, 0.0, 1.0) * 100;
    auto it =
        std::lower_bound(m_points.begin() + 1,
                         m_points.end() - 1,
                         y,
                         [](const std::pair<double, double>& p, double v) { return p.second < v; });
    const auto& [x1, y1] = *it;
    const auto& [x0, y0] = *(it - 1);
    return x0 + (x1 - x0) * (y - y0) / (y1 - y0);
}

uint64_t
FlowSizeCdf::Sample(double u) const
{
    return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(Quantile(u))));
}

double
FlowSizeCdf::Probability(double bytes) const
{
    if (bytes <= m_points.front().first)
    {
        return bytes < m_points.front().first ? 0 : m_points.front().second / 100;
    }
    if (bytes >= m_points.back().first)
    {
        return 1;
    }
    auto it =
        std::lower_bound(m_points.begin(),
                         m_points.end(),
                         bytes,
                         [](const std::pair<double, double>& p, double v) { return p.first < v; });
    const auto& [x1, y1] = *it;
    const auto& [x0, y0] = *(it - 1);
    return (y0 + (y1 - y0) * (bytes - x0) / (x1 - x0)) / 100;
}

const std::vector<std::string>&
ShippedCdfNames()
{
    static const std::vector<std::string> names = {"websearch",
                                                   "hadoop",
                                                   "alistorage",
                                                   "googlerpc"};
    return names;
}

std::string
ShippedCdfPath(const std::string& name)
{
    return "contrib/fabric/workloads/" + name + ".txt";
}

} // namespace ns3
