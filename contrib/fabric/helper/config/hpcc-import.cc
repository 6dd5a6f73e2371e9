#include "config/hpcc-import.h"

#include "config/topology-generators.h"
#include "config/units.h"

#include "ns3/boolean.h"
#include "ns3/global-value.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

namespace ns3
{

namespace
{

/// Bound on N_nodes: far beyond a packet-level run, but a typo must not exhaust memory.
constexpr uint64_t kMaxNodes = 1ULL << 22;
/// Records reserved up front at most (the counts are checked against the file, not trusted).
constexpr uint64_t kMaxReserve = 1ULL << 16;

/// One non-blank line split at whitespace.
struct Row
{
    int line = 0;
    std::vector<std::string> cols;
};

/// Reads a file line by line, skipping blank lines (HPCC's operator>> skips them too).
class RowReader
{
  public:
    explicit RowReader(const std::string& path)
        : m_path(path)
    {
        std::error_code ec;
        if (std::filesystem::is_directory(path, ec))
        {
            throw ConfigError(path, 0, "", "is a directory, expected a text file");
        }
        m_in.open(path);
        if (!m_in)
        {
            throw ConfigError(path,
                              0,
                              "",
                              std::string("cannot open file: ") + std::strerror(errno));
        }
    }

    /// The next non-blank line, or false at the end of the file.
    bool Next(Row* row)
    {
        std::string text;
        while (std::getline(m_in, text))
        {
            ++m_line;
            row->line = m_line;
            row->cols.clear();
            size_t i = 0;
            while (i < text.size())
            {
                while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
                {
                    ++i;
                }
                size_t start = i;
                while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])))
                {
                    ++i;
                }
                if (i > start)
                {
                    row->cols.push_back(text.substr(start, i - start));
                }
            }
            if (!row->cols.empty())
            {
                return true;
            }
        }
        if (m_in.bad())
        {
            throw ConfigError(m_path, m_line, "", "read error");
        }
        return false;
    }

  private:
    std::string m_path;
    std::ifstream m_in;
    int m_line = 0;
};

/// Plain decimal non-negative integer (no sign, no exponent) not above \p max.
std::optional<uint64_t>
ParseUint(const std::string& text, uint64_t max = std::numeric_limits<uint64_t>::max())
{
    if (text.empty())
    {
        return std::nullopt;
    }
    uint64_t v = 0;
    for (char c : text)
    {
        if (c < '0' || c > '9')
        {
            return std::nullopt;
        }
        uint64_t d = static_cast<uint64_t>(c - '0');
        if (v > (max - d) / 10)
        {
            return std::nullopt;
        }
        v = v * 10 + d;
    }
    return v;
}

bool
IsPlainNumber(const std::string& text)
{
    return !text.empty() && text.find_first_not_of("0123456789.eE+-") == std::string::npos;
}

std::string
Plural(uint64_t n, const std::string& word, const std::string& plural = "")
{
    return std::to_string(n) + " " + (n == 1 ? word : plural.empty() ? word + "s" : plural);
}

/// Rounds half up while dropping decimal digits; fails on int64 overflow.
bool
DigitsToInt64(const std::string& digits, int64_t scale, int64_t* out)
{
    // digits * 10^scale, digits without leading zeros ("" = 0).
    const uint64_t max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    std::string kept = digits;
    bool roundUp = false;
    if (scale < 0)
    {
        int64_t drop = -scale;
        int64_t keep = static_cast<int64_t>(digits.size()) - drop;
        if (keep < 0)
        {
            kept.clear();
        }
        else
        {
            kept = digits.substr(0, static_cast<size_t>(keep));
            roundUp = digits[static_cast<size_t>(keep)] >= '5';
        }
        scale = 0;
    }
    uint64_t v = 0;
    for (char c : kept)
    {
        uint64_t d = static_cast<uint64_t>(c - '0');
        if (v > (max - d) / 10)
        {
            return false;
        }
        v = v * 10 + d;
    }
    for (int64_t i = 0; i < scale && v != 0; ++i)
    {
        if (v > max / 10)
        {
            return false;
        }
        v *= 10;
    }
    if (roundUp)
    {
        if (v == max)
        {
            return false;
        }
        ++v;
    }
    *out = static_cast<int64_t>(v);
    return true;
}

enum class SecondsParse
{
    OK,
    MALFORMED,
    NEGATIVE,
    TOO_LARGE,
};

/**
 * Seconds written as a decimal number ("2", "2.0000001", ".5", "1.5e-6") to picoseconds, exactly:
 * the digits are shifted, never multiplied in floating point.
 */
SecondsParse
ParseSecondsToPs(const std::string& text, int64_t* ps)
{
    size_t i = 0;
    if (i < text.size() && (text[i] == '-' || text[i] == '+'))
    {
        if (text[i] == '-')
        {
            // "-0" is still negative to a reader: a start time before zero makes no sense.
            return IsPlainNumber(text) ? SecondsParse::NEGATIVE : SecondsParse::MALFORMED;
        }
        ++i;
    }
    std::string digits;
    int64_t fracDigits = 0;
    bool any = false;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
    {
        digits += text[i++];
        any = true;
    }
    if (i < text.size() && text[i] == '.')
    {
        ++i;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
        {
            digits += text[i++];
            ++fracDigits;
            any = true;
        }
    }
    if (!any)
    {
        return SecondsParse::MALFORMED;
    }
    int64_t exponent = 0;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E'))
    {
        ++i;
        bool negative = false;
        if (i < text.size() && (text[i] == '-' || text[i] == '+'))
        {
            negative = text[i] == '-';
            ++i;
        }
        size_t start = i;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
        {
            // Saturate: anything beyond a few dozen decades is out of range or zero anyway.
            exponent = std::min<int64_t>(exponent * 10 + (text[i] - '0'), 100000);
            ++i;
        }
        if (i == start)
        {
            return SecondsParse::MALFORMED;
        }
        if (negative)
        {
            exponent = -exponent;
        }
    }
    if (i != text.size())
    {
        return SecondsParse::MALFORMED;
    }
    size_t nz = digits.find_first_not_of('0');
    digits = nz == std::string::npos ? std::string() : digits.substr(nz);
    return DigitsToInt64(digits, 12 - fracDigits + exponent, ps) ? SecondsParse::OK
                                                                 : SecondsParse::TOO_LARGE;
}

/// HPCC reads as many records as the count on line 1 says and ignores the rest (its shipped
/// mix/topology.txt and mix/flow.txt have more): so does the import, saying so once; strict
/// counts refuse them.
void
ExtraRecords(const std::string& path,
             const std::string& key,
             const std::string& counted,
             int firstIgnoredLine,
             HpccCounts policy)
{
    if (policy == HpccCounts::STRICT)
    {
        throw ConfigError(path,
                          1,
                          key,
                          "says " + counted + " but more records follow from line " +
                              std::to_string(firstIgnoredLine) +
                              " (--strict-import; without it they are ignored, as HPCC does)");
    }
    if (policy == HpccCounts::AS_HPCC_SILENT)
    {
        return;
    }
    std::cerr << "warning: " << path << ":1: " << key << ": says " << counted << "; line "
              << firstIgnoredLine << " and those after it are ignored, as HPCC ignores them\n";
}

GlobalValue g_strictImport("FabricStrictImport",
                           "Refuse HPCC topology.txt / flow.txt records after the count on line 1 "
                           "(fabric-run --strict-import) instead of ignoring them as HPCC does",
                           BooleanValue(false),
                           MakeBooleanChecker());

/// The first line of both files: exactly the named counts, or (\p alternative, when given)
/// exactly those.
std::vector<uint64_t>
ReadCounts(RowReader& in,
           const std::string& path,
           std::vector<std::string> names,
           std::vector<uint64_t> maxima,
           const std::vector<std::string>& alternative = {},
           const std::vector<uint64_t>& alternativeMaxima = {})
{
    auto layoutOf = [](const std::vector<std::string>& columns) {
        std::string layout;
        for (const auto& n : columns)
        {
            layout += (layout.empty() ? "" : " ") + n;
        }
        return "'" + layout + "' (" + Plural(columns.size(), "column") + ")";
    };
    std::string layout = layoutOf(names);
    if (!alternative.empty())
    {
        layout += " or " + layoutOf(alternative);
    }
    Row row;
    if (!in.Next(&row))
    {
        throw ConfigError(path, 1, names[0], "the file is empty; the first line must be " + layout);
    }
    if (!alternative.empty() && row.cols.size() == alternative.size())
    {
        names = alternative;
        maxima = alternativeMaxima;
    }
    if (row.cols.size() != names.size())
    {
        throw ConfigError(path,
                          row.line,
                          "columns",
                          "the first line must be " + layout + ", got " +
                              Plural(row.cols.size(), "column"));
    }
    std::vector<uint64_t> out;
    for (size_t i = 0; i < names.size(); ++i)
    {
        auto v = ParseUint(row.cols[i]);
        if (!v)
        {
            throw ConfigError(path,
                              row.line,
                              names[i],
                              "expected a non-negative integer, got '" + row.cols[i] + "'");
        }
        if (*v > maxima[i])
        {
            throw ConfigError(path,
                              row.line,
                              names[i],
                              row.cols[i] + " is too large (at most " + std::to_string(maxima[i]) +
                                  ")");
        }
        out.push_back(*v);
    }
    return out;
}

/// A rate written without a unit, in bit/s, as ns-3's DataRate reads one and ns3-datacenter's
/// topology files write them ("25000000000.0"): a positive whole number of bit/s.
std::optional<DataRate>
PlainBitRate(const std::string& text)
{
    char* end = nullptr;
    errno = 0;
    double bps = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || errno != 0 || !std::isfinite(bps) || bps < 1 ||
        bps > 1e15 || bps != std::floor(bps))
    {
        return std::nullopt;
    }
    return DataRate(static_cast<uint64_t>(bps));
}

/// A node id column: an integer below nNodes. \p topoName names the topology file when the
/// column is in another file (flows), empty in the topology itself.
uint32_t
NodeId(const std::string& path,
       const Row& row,
       size_t col,
       const std::string& key,
       uint64_t nNodes,
       const std::string& topoName = "")
{
    const std::string& text = row.cols[col];
    auto v = ParseUint(text);
    if (!v)
    {
        throw ConfigError(path,
                          row.line,
                          key,
                          "expected a node id (an integer 0.." + std::to_string(nNodes - 1) +
                              "), got '" + text + "'");
    }
    if (*v >= nNodes)
    {
        throw ConfigError(path,
                          row.line,
                          key,
                          "node " + text + " does not exist" +
                              (topoName.empty()
                                   ? " (N_nodes is " + std::to_string(nNodes) + ": "
                                   : " in " + topoName + " (" + Plural(nNodes, "node") + ": ") +
                              "ids 0.." + std::to_string(nNodes - 1) + ")");
    }
    return static_cast<uint32_t>(*v);
}

} // namespace

HpccCounts
HpccCountsFromGlobal()
{
    BooleanValue strict;
    GlobalValue::GetValueByName("FabricStrictImport", strict);
    return strict.Get() ? HpccCounts::STRICT : HpccCounts::AS_HPCC;
}

HpccTopology
ReadHpccTopology(const std::string& path, HpccCounts policy)
{
    RowReader in(path);
    // HPCC's and ConWeave's header has three counts; ns3-datacenter's (the PowerTCP authors')
    // has four, the ToR count third, which it reads and never uses
    // (examples/PowerTCP/powertcp-evaluation-burst.cc:746: node_num, switch_num, tors,
    // link_num).
    const uint64_t kMaxLinks = std::numeric_limits<uint32_t>::max();
    auto counts = ReadCounts(in,
                             path,
                             {"N_nodes", "N_switches", "N_links"},
                             {kMaxNodes, kMaxNodes, kMaxLinks},
                             {"N_nodes", "N_switches", "N_tors", "N_links"},
                             {kMaxNodes, kMaxNodes, kMaxNodes, kMaxLinks});
    const uint64_t nNodes = counts[0];
    const uint64_t nSwitches = counts[1];
    const uint64_t nLinks = counts.back();
    if (nNodes == 0)
    {
        throw ConfigError(path, 1, "N_nodes", "a topology needs nodes, got 0");
    }
    if (nSwitches >= nNodes)
    {
        throw ConfigError(path,
                          1,
                          "N_switches",
                          std::to_string(nSwitches) + " switches among " + Plural(nNodes, "node") +
                              " leaves no hosts");
    }

    // Line 2: the switch ids, all on one line.
    std::vector<bool> isSwitch(nNodes, false);
    Row row;
    int switchLine = 0;
    if (nSwitches > 0)
    {
        if (!in.Next(&row))
        {
            throw ConfigError(path,
                              1,
                              "N_switches",
                              "says " + Plural(nSwitches, "switch", "switches") +
                                  " but the file ends before the line of switch ids");
        }
        switchLine = row.line;
        for (size_t c = 0; c < row.cols.size(); ++c)
        {
            uint32_t id = NodeId(path, row, c, "switch_ids", nNodes);
            if (isSwitch[id])
            {
                throw ConfigError(path,
                                  row.line,
                                  "switch_ids",
                                  "node " + std::to_string(id) + " is listed twice");
            }
            isSwitch[id] = true;
        }
        if (row.cols.size() != nSwitches)
        {
            throw ConfigError(path,
                              row.line,
                              "switch_ids",
                              "lists " + Plural(row.cols.size(), "switch id") +
                                  " but N_switches on line 1 is " + std::to_string(nSwitches) +
                                  " (the ids must all be on this line)");
        }
    }

    HpccTopology topo;
    TopologySpec& spec = topo.spec;
    spec.source = path;
    spec.nodes.reserve(nNodes);
    topo.hostIndexOfNodeId.assign(nNodes, HpccTopology::kNotAHost);
    topo.nodeIndexOfNodeId.assign(nNodes, 0);
    for (int pass = 0; pass < 2; ++pass)
    {
        const bool switches = pass == 1;
        for (uint32_t id = 0; id < nNodes; ++id)
        {
            if (isSwitch[id] != switches)
            {
                continue;
            }
            TopologyNode node;
            node.isSwitch = switches;
            node.name = (switches ? "sw" : "h") + std::to_string(id);
            node.role = switches ? "switch" : "host";
            topo.nodeIndexOfNodeId[id] = static_cast<uint32_t>(spec.nodes.size());
            if (!switches)
            {
                topo.hostIndexOfNodeId[id] = static_cast<uint32_t>(spec.nodes.size());
            }
            spec.nodes.push_back(std::move(node));
        }
    }

    spec.links.reserve(std::min(nLinks, kMaxReserve));
    topo.linkErrorRate.reserve(std::min(nLinks, kMaxReserve));
    while (in.Next(&row))
    {
        if (spec.links.size() == nLinks)
        {
            ExtraRecords(path, "N_links", Plural(nLinks, "link"), row.line, policy);
            break;
        }
        if (row.cols.size() != 5)
        {
            throw ConfigError(path,
                              row.line,
                              "columns",
                              "a link line is 'src dst rate delay error_rate' (5 columns), got " +
                                  Plural(row.cols.size(), "column"));
        }
        uint32_t src = NodeId(path, row, 0, "src", nNodes);
        uint32_t dst = NodeId(path, row, 1, "dst", nNodes);
        if (src == dst)
        {
            throw ConfigError(path,
                              row.line,
                              "dst",
                              "link from node " + std::to_string(src) + " to itself");
        }
        TopologyLink link;
        link.a = topo.nodeIndexOfNodeId[src];
        link.b = topo.nodeIndexOfNodeId[dst];
        link.sourceLine = row.line;

        const std::string& rateText = row.cols[2];
        auto rate = IsPlainNumber(rateText) ? PlainBitRate(rateText) : ParseDataRate(rateText);
        if (!rate)
        {
            throw ConfigError(path,
                              row.line,
                              "rate",
                              "expected a positive data rate such as 100Gbps, 25Gb/s or "
                              "25000000000 (bit/s), got '" +
                                  rateText + "'");
        }
        link.rate = *rate;

        const std::string& delayText = row.cols[3];
        auto delay = ParseTime(delayText);
        if (!delay)
        {
            throw ConfigError(path,
                              row.line,
                              "delay",
                              IsPlainNumber(delayText)
                                  ? "'" + delayText + "' has no unit: write e.g. 1us or 0.001ms"
                                  : "expected a delay such as 1us, 1000ns or 0.001ms (not "
                                    "negative), got '" +
                                        delayText + "'");
        }
        link.delay = *delay;

        const std::string& errText = row.cols[4];
        char* end = nullptr;
        errno = 0;
        double err = std::strtod(errText.c_str(), &end);
        if (!IsPlainNumber(errText) || end != errText.c_str() + errText.size() || errno != 0 ||
            !std::isfinite(err) || err < 0 || err > 1)
        {
            throw ConfigError(path,
                              row.line,
                              "error_rate",
                              "expected a packet loss probability between 0 and 1, got '" +
                                  errText + "'");
        }
        spec.links.push_back(link);
        topo.linkErrorRate.push_back(err == 0 ? 0.0 : err); // no -0
    }
    if (spec.links.size() != nLinks)
    {
        throw ConfigError(path,
                          1,
                          "N_links",
                          "says " + Plural(nLinks, "link") + " but the file has " +
                              Plural(spec.links.size(), "link line"));
    }

    if (auto problem = FindTopologyProblem(spec))
    {
        if (problem->link)
        {
            throw ConfigError(path,
                              spec.links[*problem->link].sourceLine,
                              "link",
                              problem->message);
        }
        if (problem->node)
        {
            const TopologyNode& node = spec.nodes[*problem->node];
            const std::string id = node.name.substr(node.isSwitch ? 2 : 1);
            throw ConfigError(path, node.isSwitch ? switchLine : 1, "node " + id, problem->message);
        }
        throw ConfigError(path, 1, "", problem->message);
    }
    return topo;
}

std::vector<FlowSpec>
ReadHpccFlows(const std::string& path, const HpccTopology& topo, HpccCounts policy)
{
    RowReader in(path);
    const uint64_t nFlows =
        ReadCounts(in, path, {"N_flows"}, {std::numeric_limits<uint32_t>::max()})[0];
    const uint64_t nNodes = topo.hostIndexOfNodeId.size();
    const std::string topoName = topo.spec.source.empty() ? "the topology" : topo.spec.source;

    std::vector<FlowSpec> flows;
    flows.reserve(std::min(nFlows, kMaxReserve));
    size_t columns = 0; // 6: HPCC, 5: ConWeave (no dport); set by the first flow line
    int firstLine = 0;
    Row row;
    while (in.Next(&row))
    {
        if (flows.size() == nFlows)
        {
            ExtraRecords(path, "N_flows", Plural(nFlows, "flow"), row.line, policy);
            break;
        }
        if (columns == 0)
        {
            if (row.cols.size() != 6 && row.cols.size() != 5)
            {
                throw ConfigError(path,
                                  row.line,
                                  "columns",
                                  "a flow line is 'src dst priority dport size start_time' (6 "
                                  "columns, HPCC) or 'src dst priority size start_time' (5, "
                                  "ConWeave), got " +
                                      Plural(row.cols.size(), "column"));
            }
            columns = row.cols.size();
            firstLine = row.line;
        }
        else if (row.cols.size() != columns)
        {
            throw ConfigError(path,
                              row.line,
                              "columns",
                              "expected " + std::to_string(columns) + " columns like line " +
                                  std::to_string(firstLine) + " ('" +
                                  (columns == 6 ? "src dst priority dport size start_time"
                                                : "src dst priority size start_time") +
                                  "'), got " + std::to_string(row.cols.size()));
        }
        const size_t sizeCol = columns == 6 ? 4 : 3;
        const size_t startCol = columns == 6 ? 5 : 4;

        FlowSpec flow;
        auto endpoint = [&](size_t col, const std::string& key) {
            if (nNodes == 0)
            {
                throw ConfigError(path, row.line, key, topoName + " has no nodes");
            }
            uint32_t id = NodeId(path, row, col, key, nNodes, topoName);
            uint32_t host = topo.hostIndexOfNodeId[id];
            if (host == HpccTopology::kNotAHost)
            {
                throw ConfigError(path,
                                  row.line,
                                  key,
                                  "node " + std::to_string(id) + " is a switch (sw" +
                                      std::to_string(id) + " in " + topoName +
                                      "); flows run between hosts");
            }
            return host;
        };
        flow.src = endpoint(0, "src");
        flow.dst = endpoint(1, "dst");
        if (flow.src == flow.dst)
        {
            throw ConfigError(path,
                              row.line,
                              "dst",
                              "a flow needs different source and destination, got node " +
                                  row.cols[1] + " twice");
        }

        auto prio = ParseUint(row.cols[2]);
        if (!prio || *prio > 7)
        {
            throw ConfigError(path,
                              row.line,
                              "priority",
                              "expected a traffic class 0..7, got '" + row.cols[2] + "'");
        }
        flow.priority = static_cast<uint8_t>(*prio);

        if (columns == 6 && !ParseUint(row.cols[3]))
        {
            throw ConfigError(path,
                              row.line,
                              "dport",
                              "expected a port number (a non-negative integer; it is ignored), "
                              "got '" +
                                  row.cols[3] + "'");
        }

        auto size = ParseUint(row.cols[sizeCol]);
        if (!size || *size == 0)
        {
            throw ConfigError(path,
                              row.line,
                              "size",
                              "expected a positive whole number of bytes, got '" +
                                  row.cols[sizeCol] + "'");
        }
        flow.bytes = *size;

        const std::string& startText = row.cols[startCol];
        int64_t ps = 0;
        switch (ParseSecondsToPs(startText, &ps))
        {
        case SecondsParse::OK:
            break;
        case SecondsParse::MALFORMED:
            throw ConfigError(path,
                              row.line,
                              "start_time",
                              "expected seconds as a decimal number such as 2.0000001, got '" +
                                  startText + "'");
        case SecondsParse::NEGATIVE:
            throw ConfigError(path,
                              row.line,
                              "start_time",
                              "must not be negative, got '" + startText + "'");
        case SecondsParse::TOO_LARGE:
            throw ConfigError(path,
                              row.line,
                              "start_time",
                              "'" + startText +
                                  "' seconds is beyond the simulator's time range (about 106 "
                                  "days at picosecond resolution)");
        }
        flow.start = PicoSeconds(ps);
        flows.push_back(flow);
    }
    if (flows.size() != nFlows)
    {
        throw ConfigError(path,
                          1,
                          "N_flows",
                          "says " + Plural(nFlows, "flow") + " but the file has " +
                              Plural(flows.size(), "flow line"));
    }
    return flows;
}

} // namespace ns3
