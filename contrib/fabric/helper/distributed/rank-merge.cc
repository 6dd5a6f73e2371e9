#include "distributed/rank-merge.h"

#include "trace/csv-writer.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace fs = std::filesystem;

std::string
RankDirectory(const std::string& outDir, uint32_t rank)
{
    return outDir + "/rank-" + std::to_string(rank);
}

void
WriteRankPartial(const std::string& dir,
                 const nlohmann::json& rankInfo,
                 const nlohmann::json& totals,
                 const FlowTable& table)
{
    nlohmann::json flows = nlohmann::json::array();
    for (const FlowRecord& f : table.All())
    {
        flows.push_back(FlowPartialToJson(f));
    }
    nlohmann::json j = {{"rank", rankInfo}, {"totals", totals}, {"flows", flows}};
    if (!WriteFileAtomically(dir + "/partial.json", j.dump() + "\n"))
    {
        throw std::runtime_error("cannot write " + dir + "/partial.json");
    }
}

namespace
{

/// Leading integer of a CSV row (its time_ns).
int64_t
LeadingTime(const std::string& row)
{
    return std::strtoll(row.c_str(), nullptr, 10);
}

} // namespace

void
MergeCsvFiles(const std::vector<std::string>& parts, const std::string& out, uint64_t gzipAbove)
{
    std::string header;
    std::vector<std::string> rows;
    for (const std::string& path : parts)
    {
        std::ifstream in(path);
        std::string line;
        if (!std::getline(in, line))
        {
            continue;
        }
        if (header.empty())
        {
            header = line;
        }
        else if (line != header)
        {
            throw std::runtime_error("cannot merge " + path + ": header '" + line +
                                     "' differs from '" + header + "'");
        }
        while (std::getline(in, line))
        {
            rows.push_back(line);
        }
    }
    if (header.rfind("time_ns,", 0) == 0)
    {
        std::sort(rows.begin(), rows.end(), [](const std::string& a, const std::string& b) {
            int64_t ta = LeadingTime(a);
            int64_t tb = LeadingTime(b);
            return ta != tb ? ta < tb : a < b;
        });
    }
    CsvWriter writer(out, header);
    for (const std::string& r : rows)
    {
        writer.Row() << r << '\n';
    }
    if (!writer.Commit(gzipAbove))
    {
        throw std::runtime_error("cannot write " + out);
    }
}

RankMerge
MergeRanks(const std::string& outDir, uint32_t size, uint64_t gzipAbove, FlowTable& table)
{
    RankMerge m;
    m.ranks = nlohmann::json::array();
    for (uint32_t i = 0; i < table.GetN(); ++i)
    {
        ClearFlowPartial(table.Get(i));
    }
    std::map<std::string, std::vector<std::string>> csvParts;
    for (uint32_t r = 0; r < size; ++r)
    {
        std::string dir = RankDirectory(outDir, r);
        std::ifstream in(dir + "/partial.json");
        if (!in)
        {
            throw std::runtime_error("rank " + std::to_string(r) + " wrote no " + dir +
                                     "/partial.json");
        }
        nlohmann::json j = nlohmann::json::parse(in);
        const nlohmann::json& flows = j.at("flows");
        for (uint32_t i = 0; i < table.GetN() && i < flows.size(); ++i)
        {
            MergeFlowPartial(table.Get(i), flows[i]);
        }
        RunTotals part = TotalsFromJson(j.at("totals"));
        if (r == 0)
        {
            m.totals = part;
        }
        else
        {
            AccumulateTotals(m.totals, part);
        }
        const nlohmann::json& info = j.at("rank");
        m.ranks.push_back(info);
        m.wallSeconds = std::max(m.wallSeconds, info.at("wall_s").get<double>());
        m.simEnd = std::max(m.simEnd, PicoSeconds(info.at("sim_time_ps").get<int64_t>()));
        for (const auto& entry : fs::directory_iterator(dir))
        {
            std::string name = entry.path().filename().string();
            if (entry.path().extension() == ".csv")
            {
                csvParts[name].push_back(entry.path().string());
            }
            else if (entry.path().extension() == ".pcap")
            {
                fs::rename(entry.path(), fs::path(outDir) / name); // one file per port
            }
        }
    }
    for (const auto& [name, parts] : csvParts)
    {
        MergeCsvFiles(parts, outDir + "/" + name, gzipAbove);
    }
    for (uint32_t r = 0; r < size; ++r)
    {
        fs::remove_all(RankDirectory(outDir, r));
    }
    return m;
}

nlohmann::json
DescribeDistributedRun(const TopologySpec& spec,
                       const PartitionPlan& plan,
                       const RankMerge& merged,
                       Time drain)
{
    const TopologyPartition& p = plan.partition;
    nlohmann::json cut = nlohmann::json::array();
    for (uint32_t li : p.cutLinks)
    {
        cut.push_back(spec.nodes[spec.links[li].a].name + "-" + spec.nodes[spec.links[li].b].name);
    }
    bool bounded = p.lookahead != Time::Max();
    return {{"ranks", plan.size},
            {"description", DescribePartition(spec, p)},
            {"partition", plan.method},
            {"sync", plan.sync},
            {"lookahead_ns",
             bounded ? nlohmann::json(p.lookahead.GetNanoSeconds()) : nlohmann::json(nullptr)},
            {"drain_ps", drain.GetPicoSeconds()},
            {"cut_links", p.cutLinks.size()},
            {"cut", cut},
            {"hosts_per_rank", p.hostsPerRank},
            {"nodes_per_rank", p.nodesPerRank},
            {"per_rank", merged.ranks}};
}

} // namespace ns3
