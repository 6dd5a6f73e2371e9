#include "record/hpcc-pfc-writer.h"

#include "ns3/simulator.h"

#include <cinttypes>
#include <cstdio>

namespace ns3
{

HpccPfcWriter::HpccPfcWriter(const FabricNetwork* net,
                             const TraceConfig::Hpcc& config,
                             std::string path)
    : m_net(net),
      m_config(config),
      m_path(std::move(path))
{
    m_out.open(m_path + ".tmp", std::ios::out | std::ios::trunc);
}

void
HpccPfcWriter::Received(uint32_t node, uint32_t port, uint16_t quanta)
{
    uint32_t id = m_config.nodeIds.empty() ? node : m_config.nodeIds[node];
    bool isSwitch = m_net->Spec().nodes[node].isSwitch;
    char line[96];
    int n = std::snprintf(line,
                          sizeof line,
                          "%" PRIu64 " %u %u %u %u\n",
                          static_cast<uint64_t>(Simulator::Now().GetNanoSeconds()),
                          id,
                          isSwitch ? 1u : 0u,
                          port + 1,
                          quanta > 0 ? 1u : 0u);
    m_out.write(line, n);
}

void
HpccPfcWriter::Finish()
{
    m_out.close();
    std::rename((m_path + ".tmp").c_str(), m_path.c_str());
}

} // namespace ns3
