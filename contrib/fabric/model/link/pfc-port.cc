#include "pfc-port.h"

#include "wire/pfc-pause-header.h"

#include "ns3/ethernet-header.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcPort");

PfcPort::PfcPort()
{
    m_pausedUntil.fill(Time(0));
    m_lastPause.fill(PicoSeconds(-1));
}

void
PfcPort::SetPauseIgnored(uint8_t priority, bool ignored)
{
    if (ignored)
    {
        m_ignorePauseMask |= static_cast<uint8_t>(1u << priority);
        m_pausedUntil[priority] = Time(0);
    }
    else
    {
        m_ignorePauseMask &= static_cast<uint8_t>(~(1u << priority));
    }
}

PfcPort::Received
PfcPort::Receive(Ptr<Packet> frame,
                 Time now,
                 Time quantum,
                 const TracedCallback<uint8_t, uint16_t>& trace)
{
    EthernetHeader eth(false);
    frame->RemoveHeader(eth);
    PfcPauseHeader pfc;
    frame->RemoveHeader(pfc);
    if (!pfc.IsValid())
    {
        return NOT_PFC; // other MAC Control opcodes (e.g. 802.3x PAUSE) are not modelled
    }
    bool resumed = false;
    for (uint8_t p = 0; p < kFabricPriorities; ++p)
    {
        if (!pfc.IsEnabled(p))
        {
            continue;
        }
        uint16_t quanta = pfc.GetPauseQuanta(p);
        NS_LOG_LOGIC("PFC priority " << unsigned(p) << " quanta " << quanta);
        trace(p, quanta);
        if (quanta > 0)
        {
            m_lastPause[p] = now;
            if (m_pausedUntil[p] <= now)
            {
                m_pausedSince[p] = now; // a new pause, not a refresh of one in force
            }
        }
        if ((m_ignorePauseMask >> p) & 1)
        {
            continue; // a PFC watchdog stopped honouring pauses for this priority
        }
        m_pausedUntil[p] = now + quantum * quanta;
        resumed |= quanta == 0;
    }
    return resumed ? RESUMED : PAUSED;
}

Time
PfcPort::EarliestResume(uint8_t waiting, Time now) const
{
    Time earliest = Time::Max();
    for (uint8_t p = 0; p < kFabricPriorities; ++p)
    {
        if (((waiting >> p) & 1) && m_pausedUntil[p] > now && m_pausedUntil[p] < earliest)
        {
            earliest = m_pausedUntil[p];
        }
    }
    return earliest;
}

Ptr<Packet>
PfcPort::BuildPause(Mac48Address source, uint8_t priority, uint16_t quanta)
{
    PfcPauseHeader pfc;
    pfc.SetPauseQuanta(priority, quanta);
    Ptr<Packet> frame = Create<Packet>();
    frame->AddHeader(pfc);
    EthernetHeader eth(false);
    eth.SetSource(source);
    eth.SetDestination(PfcPauseHeader::DestinationAddress());
    eth.SetLengthType(PfcPauseHeader::kEtherType);
    frame->AddHeader(eth);
    ++m_framesSent;
    return frame;
}

bool
PfcPort::StormDrops(const Ptr<Packet>& frame) const
{
    uint8_t b[16];
    return frame->CopyData(b, 16) == 16 && ((b[12] << 8) | b[13]) == 0x0800 &&
           ((m_stormMask >> ((b[15] >> 2) >> 3)) & 1);
}

} // namespace ns3
