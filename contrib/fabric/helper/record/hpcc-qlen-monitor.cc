#include "record/hpcc-qlen-monitor.h"

#include "ns3/simulator.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace ns3
{

HpccQlenMonitor::HpccQlenMonitor(const FabricNetwork* net,
                                 const TraceConfig::Hpcc& config,
                                 std::string path)
    : m_net(net),
      m_path(std::move(path)),
      m_startNs(config.qlenStart.GetNanoSeconds()),
      m_intervalNs(std::max<int64_t>(1, config.qlenInterval.GetNanoSeconds())),
      m_dumpNs(std::max<int64_t>(1, config.qlenDump.GetNanoSeconds()))
{
    // Sample k is at start + k * interval; the reference reschedules while a sample is before
    // QLEN_MON_END, and the stop event (scheduled first) wins over a sample at the stop time.
    int64_t endNs = config.qlenEnd.GetNanoSeconds();
    int64_t stopPs = config.stopTime.GetPicoSeconds();
    int64_t startPs = m_startNs * 1000;
    if (startPs < stopPs)
    {
        uint64_t last =
            endNs <= m_startNs
                ? 0
                : static_cast<uint64_t>((endNs - m_startNs + m_intervalNs - 1) / m_intervalNs);
        int64_t intervalPs = m_intervalNs * 1000;
        uint64_t beforeStop =
            static_cast<uint64_t>((stopPs - startPs + intervalPs - 1) / intervalPs) - 1;
        m_samples = std::min(last, beforeStop) + 1;
    }
    const TopologySpec& spec = net->Spec();
    for (uint32_t n = 0; n < spec.nodes.size(); ++n)
    {
        if (!spec.nodes[n].isSwitch || !net->IsLocal(n))
        {
            continue;
        }
        for (uint32_t p = 0; p < net->GetNPorts(n); ++p)
        {
            Port port;
            port.nodeId = config.nodeIds.empty() ? n : config.nodeIds[n];
            port.ifIndex = p + 1;
            port.node = n;
            port.port = p;
            m_ports.push_back(port);
        }
    }
    std::sort(m_ports.begin(), m_ports.end(), [](const Port& a, const Port& b) {
        return a.nodeId != b.nodeId ? a.nodeId < b.nodeId : a.ifIndex < b.ifIndex;
    });
}

void
HpccQlenMonitor::Start()
{
    m_out.open(m_path + ".tmp", std::ios::out | std::ios::trunc);
    if (m_samples == 0)
    {
        return;
    }
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        m_net->GetDevice(m_ports[i].node, m_ports[i].port)
            ->TraceConnectWithoutContext("QueueBytes",
                                         MakeCallback(&HpccQlenMonitor::Changed, this).Bind(i));
    }
    m_nextDump = NextDump(0);
    ScheduleDump();
}

uint64_t
HpccQlenMonitor::SamplesUpTo(int64_t ps) const
{
    int64_t startPs = m_startNs * 1000;
    if (ps < startPs)
    {
        return 0;
    }
    return std::min<uint64_t>(m_samples, (ps - startPs) / (m_intervalNs * 1000) + 1);
}

void
HpccQlenMonitor::Count(Port& port, uint64_t samples)
{
    if (samples <= port.counted)
    {
        return;
    }
    // QlenDistribution::add, third.cc:185-191: bucket = bytes / 1000.
    size_t kb = static_cast<size_t>(port.total / 1000);
    if (port.histogram.size() < kb + 1)
    {
        port.histogram.resize(kb + 1, 0);
    }
    port.histogram[kb] += samples - port.counted;
    port.counted = samples;
}

void
HpccQlenMonitor::Changed(uint32_t index, uint8_t priority, uint64_t bytes)
{
    Port& port = m_ports[index];
    // Samples up to now saw the depth before this change.
    Count(port, SamplesUpTo(Simulator::Now().GetPicoSeconds()));
    port.total = port.total - port.bytes[priority] + bytes;
    port.bytes[priority] = bytes;
}

uint64_t
HpccQlenMonitor::NextDump(uint64_t from) const
{
    if (from >= m_samples)
    {
        return m_samples;
    }
    int64_t t = m_startNs + static_cast<int64_t>(from) * m_intervalNs;
    int64_t lastNs = m_startNs + static_cast<int64_t>(m_samples - 1) * m_intervalNs;
    for (int64_t m = (t + m_dumpNs - 1) / m_dumpNs * m_dumpNs; m <= lastNs; m += m_dumpNs)
    {
        if ((m - m_startNs) % m_intervalNs == 0)
        {
            return static_cast<uint64_t>((m - m_startNs) / m_intervalNs);
        }
    }
    return m_samples;
}

void
HpccQlenMonitor::ScheduleDump()
{
    if (m_nextDump >= m_samples)
    {
        return;
    }
    Time at = NanoSeconds(m_startNs + static_cast<int64_t>(m_nextDump) * m_intervalNs);
    Simulator::Schedule(at - Simulator::Now(), &HpccQlenMonitor::Dump, this);
}

void
HpccQlenMonitor::Dump()
{
    Write(m_nextDump);
    m_nextDump = NextDump(m_nextDump + 1);
    ScheduleDump();
}

void
HpccQlenMonitor::Write(uint64_t sample)
{
    char text[32];
    std::snprintf(text,
                  sizeof text,
                  "time: %" PRIu64 "\n",
                  static_cast<uint64_t>(m_startNs + static_cast<int64_t>(sample) * m_intervalNs));
    m_out << text;
    for (Port& port : m_ports)
    {
        Count(port, sample + 1);
        m_out << port.nodeId << ' ' << port.ifIndex;
        for (uint64_t c : port.histogram)
        {
            m_out << ' ' << c;
        }
        m_out << '\n';
    }
}

void
HpccQlenMonitor::Finish()
{
    // The samples after the end of the run see the queues as they are now.
    while (m_nextDump < m_samples)
    {
        Write(m_nextDump);
        m_nextDump = NextDump(m_nextDump + 1);
    }
    m_out.close();
    std::rename((m_path + ".tmp").c_str(), m_path.c_str());
}

} // namespace ns3
