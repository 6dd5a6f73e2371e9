#include "record/ub-recorder.h"

#include "ub/ub-nic.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

UbRecorder::UbRecorder(const std::vector<Ptr<HostTransport>>& nics, const std::string& outDir)
    : m_nics(nics),
      m_active(false)
{
    for (const Ptr<HostTransport>& nic : nics)
    {
        m_active = m_active || DynamicCast<UbNic>(nic); // null: a host of another rank
    }
    m_nics.erase(std::remove(m_nics.begin(), m_nics.end(), nullptr), m_nics.end());
    if (m_active)
    {
        m_reorder.Open(outDir + "/reorder.csv", "time_ns,flow_id,packets,bytes");
    }
}

void
UbRecorder::Start()
{
    if (!m_active)
    {
        return;
    }
    for (const Ptr<HostTransport>& nic : m_nics)
    {
        nic->TraceConnectWithoutContext("ReorderBuffer", MakeCallback(&UbRecorder::Reorder, this));
    }
}

void
UbRecorder::Reorder(uint32_t flowId, uint32_t packets, uint64_t bytes)
{
    m_reorder.IntegerRow(Simulator::Now().GetNanoSeconds(), flowId, packets, bytes);
}

void
UbRecorder::Finish(uint64_t gzipAbove)
{
    if (m_active)
    {
        m_reorder.Commit(gzipAbove);
    }
}

void
UbRecorder::Summarize(nlohmann::json& summary) const
{
    if (!m_active)
    {
        return;
    }
    uint64_t peakBytes = 0;
    uint32_t peakPackets = 0;
    uint64_t resent = 0;
    uint64_t misses = 0;
    uint64_t channels = 0;
    for (const Ptr<HostTransport>& t : m_nics)
    {
        Ptr<UbNic> nic = DynamicCast<UbNic>(t);
        peakBytes = std::max(peakBytes, nic->GetPeakReorderBytes());
        peakPackets = std::max(peakPackets, nic->GetPeakReorderPackets());
        resent += nic->GetResentPackets();
        misses += nic->GetContextMisses();
        channels += nic->GetSenderChannels();
    }
    summary["ub"] = {{"reorder_peak_bytes_per_nic", peakBytes},
                     {"reorder_peak_packets_per_nic", peakPackets},
                     {"resent_packets", resent},
                     {"context_misses", misses},
                     {"sender_channels", channels}};
}

} // namespace ns3
