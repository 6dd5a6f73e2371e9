#include "credit-port.h"

#include "fabric-net-device.h"
#include "sim/fabric-now.h"
#include "wire/credit-update-header.h"

#include "ns3/ethernet-header.h"
#include "ns3/simulator.h"

namespace ns3
{

CreditPort::CreditPort(FabricNetDevice* device,
                       const PortQueues& queues,
                       uint32_t cellBytes,
                       uint32_t cells,
                       uint8_t laneMask,
                       bool shared)
    : m_device(device),
      m_queues(queues),
      m_state(cellBytes, cells, laneMask, shared)
{
}

CreditPort::~CreditPort()
{
    Cancel();
}

void
CreditPort::Cancel()
{
    m_returnEvent.Cancel();
    m_syncEvent.Cancel();
    m_requestEvent.Cancel();
}

void
CreditPort::Wake()
{
    m_device->TryTransmit();
}

void
CreditPort::Discard(WireFrame& wire)
{
    if (!wire.hasInfo)
    {
        wire.info = FrameInfo();
        wire.hasInfo = ParseFrame(wire.frame.Get(), &wire.info);
    }
    int lane = wire.hasInfo ? LaneOf(wire.info) : -1;
    if (lane < 0)
    {
        return;
    }
    m_state.Free(static_cast<uint8_t>(lane), wire.info.frameBytes, false);
    ScheduleReturn();
}

void
CreditPort::Free(uint8_t lane, uint32_t bytes)
{
    m_state.Free(lane, bytes, true);
    ScheduleReturn();
}

void
CreditPort::ScheduleReturn()
{
    if (m_returnInterval.IsZero())
    {
        m_updateWanted = true;
        Wake();
        return;
    }
    if (!m_returnEvent.IsRunning())
    {
        m_returnEvent = Simulator::Schedule(m_returnInterval, &CreditPort::ReturnDue, this);
    }
}

void
CreditPort::ReturnDue()
{
    m_updateWanted = true;
    Wake();
}

void
CreditPort::SyncDue()
{
    m_syncWanted = true;
    Wake();
}

Ptr<Packet>
CreditPort::BuildFrame(Mac48Address source)
{
    CreditUpdateHeader credit;
    if (m_syncWanted)
    {
        // A SYNC carries everything freed so far: pending returns are in it too.
        m_state.FillSync(&credit);
        m_syncWanted = false;
        m_updateWanted = false;
    }
    else if (m_updateWanted && m_state.HasPending())
    {
        m_state.FillUpdate(&credit);
        m_updateWanted = false;
        // Recovery: a SYNC follows the last UPDATE by at most one interval, so an UPDATE lost
        // on the cable costs its credits for that long, not for ever.
        if (!m_syncInterval.IsZero() && !m_syncEvent.IsRunning())
        {
            m_syncEvent = Simulator::Schedule(m_syncInterval, &CreditPort::SyncDue, this);
        }
    }
    else if (m_requestWanted)
    {
        m_updateWanted = false; // nothing pending: an earlier frame returned it
        credit.SetKind(CreditUpdateHeader::REQUEST);
        m_requestWanted = false;
    }
    else
    {
        m_updateWanted = false; // an earlier frame returned what this one would have
        return nullptr;
    }
    Ptr<Packet> frame = Create<Packet>();
    frame->AddHeader(credit);
    EthernetHeader eth(false);
    eth.SetSource(source);
    eth.SetDestination(CreditUpdateHeader::DestinationAddress());
    eth.SetLengthType(CreditUpdateHeader::kEtherType);
    frame->AddHeader(eth);
    ++m_framesSent;
    m_bytesSent += frame->GetSize();
    return frame;
}

void
CreditPort::Receive(Ptr<Packet> frame)
{
    EthernetHeader eth(false);
    frame->RemoveHeader(eth);
    CreditUpdateHeader credit;
    frame->RemoveHeader(credit);
    if (!credit.IsValid())
    {
        return;
    }
    if (credit.GetKind() == CreditUpdateHeader::REQUEST)
    {
        m_syncWanted = true;
        Wake();
        return;
    }
    m_state.Apply(credit);
    m_lastArrival = FabricNow();
    m_stalledMask = 0; // a stall that continues counts again from here
    Wake();
}

void
CreditPort::StallStarts(uint8_t p)
{
    uint8_t bit = static_cast<uint8_t>(1u << p);
    if ((m_stalledMask & bit) == 0)
    {
        m_stalledMask |= bit;
        ++m_stalls;
        if (!m_syncInterval.IsZero() && !m_requestEvent.IsRunning())
        {
            m_requestEvent = Simulator::Schedule(m_syncInterval, &CreditPort::RequestCheck, this);
        }
    }
}

void
CreditPort::RequestCheck()
{
    bool stalled = false;
    for (uint8_t p = 0; p < kFabricPriorities; ++p)
    {
        if (m_queues.Queue(p).empty())
        {
            continue;
        }
        const QueuedFrame& head = m_queues.Queue(p).front();
        stalled |= head.hasInfo && head.info.IsIpv4() && m_state.IsCredited(head.info.priority) &&
                   !m_state.CanSend(head.info.priority, head.bytes);
    }
    if (!stalled)
    {
        return;
    }
    Time now = FabricNow();
    if (now - m_lastArrival >= m_syncInterval)
    {
        // Stalled for a whole interval without a credit: credit frames may have been lost.
        m_requestWanted = true;
        Wake();
    }
    m_requestEvent = Simulator::Schedule(m_syncInterval, &CreditPort::RequestCheck, this);
}

} // namespace ns3
