#include "record/hpcc-fct-writer.h"

#include <cinttypes>
#include <cstdio>

namespace ns3
{

HpccFctWriter::HpccFctWriter(const FabricNetwork* net,
                             const TraceConfig::Hpcc& config,
                             std::string path)
    : m_net(net),
      m_config(config),
      m_path(std::move(path)),
      m_pairs(net->Spec(), config.nodeIds, config.payloadBytes)
{
}

void
HpccFctWriter::Start()
{
    m_out.open(m_path + ".tmp", std::ios::out | std::ios::trunc);
    m_net->GetFlowTable()->AddFlowFinishedCallback(
        MakeCallback(&HpccFctWriter::FlowFinished, this));
}

uint32_t
HpccFctWriter::IdOf(uint32_t host) const
{
    uint32_t node = m_net->NodeOfHost(host);
    return m_config.nodeIds.empty() ? node : m_config.nodeIds[node];
}

void
HpccFctWriter::AssignPorts(uint32_t id)
{
    const FlowTable& table = *m_net->GetFlowTable();
    const uint32_t hosts = m_net->GetNHosts();
    if (m_nextSport.empty())
    {
        m_nextSport.assign(hosts, std::vector<uint16_t>(m_config.conweave ? 1 : hosts, 10000));
        m_nextDport.assign(hosts, 100);
    }
    for (uint32_t i = static_cast<uint32_t>(m_sport.size()); i <= id; ++i)
    {
        const FlowRecord& f = table.Get(i);
        if (m_config.conweave)
        {
            m_sport.push_back(m_nextSport[f.src][0]++);
            m_dport.push_back(m_nextDport[f.dst]++);
        }
        else
        {
            m_sport.push_back(m_nextSport[f.src][f.dst]++);
            m_dport.push_back(i < m_config.dports.size() ? m_config.dports[i] : 100);
        }
    }
}

void
HpccFctWriter::FlowFinished(uint32_t id)
{
    AssignPorts(id);
    const FlowRecord& f = m_net->GetFlowTable()->Get(id);
    uint32_t src = IdOf(f.src);
    uint32_t dst = IdOf(f.dst);
    uint32_t srcNode = m_net->NodeOfHost(f.src);
    uint32_t dstNode = m_net->NodeOfHost(f.dst);
    HpccPair pair = m_pairs.Get(srcNode, dstNode);
    if (m_config.conweave)
    {
        // pairRtt of ConWeave: searched from the larger id, read at the smaller.
        bool srcLarger = src > dst;
        pair.rttNs =
            m_pairs.Get(srcLarger ? dstNode : srcNode, srcLarger ? srcNode : dstNode).rttNs;
    }
    uint64_t standalone = HpccStandaloneFctNs(f.bytes, m_config.payloadBytes, pair);
    uint64_t start = static_cast<uint64_t>(f.start.GetNanoSeconds());
    uint64_t fct = static_cast<uint64_t>((f.finish - f.start).GetNanoSeconds());
    // ConWeave names the endpoints by node id, HPCC and ns3-datacenter by IP, in hex
    // (node_id_to_ip, third.cc:155-157).
    auto ip = [](uint32_t nodeId) {
        return 0x0b000001u + (nodeId / 256) * 0x00010000u + (nodeId % 256) * 0x00000100u;
    };
    const char* format = m_config.conweave
                             ? "%u %u %u %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n"
                             : "%08x %08x %u %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n";
    char line[160];
    int n = std::snprintf(line,
                          sizeof line,
                          format,
                          m_config.conweave ? src : ip(src),
                          m_config.conweave ? dst : ip(dst),
                          unsigned(m_sport[id]),
                          unsigned(m_dport[id]),
                          f.bytes,
                          start,
                          fct,
                          standalone);
    m_out.write(line, n);
}

void
HpccFctWriter::Finish()
{
    m_out.close();
    std::rename((m_path + ".tmp").c_str(), m_path.c_str());
}

} // namespace ns3
