#include "flow-table.h"

#include "sim/fabric-now.h"

#include "ns3/simulator.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FlowTable);

bool
ParseRdmaVerb(const std::string& text, RdmaVerb* verb)
{
    if (text == "send")
    {
        *verb = RdmaVerb::SEND;
    }
    else if (text == "write")
    {
        *verb = RdmaVerb::WRITE;
    }
    else if (text == "read")
    {
        *verb = RdmaVerb::READ;
    }
    else if (text == "load")
    {
        *verb = RdmaVerb::LOAD;
    }
    else if (text == "store")
    {
        *verb = RdmaVerb::STORE;
    }
    else if (text == "atomic")
    {
        *verb = RdmaVerb::ATOMIC;
    }
    else
    {
        return false;
    }
    return true;
}

TypeId
FlowTable::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowTable").SetParent<Object>().SetGroupName("Fabric");
    return tid;
}

uint32_t
FlowTable::Add(FlowRecord record)
{
    record.id = static_cast<uint32_t>(m_flows.size());
    m_flows.push_back(record);
    return record.id;
}

void
FlowTable::Delivered(uint32_t id, uint32_t payloadBytes, bool ecnMarked)
{
    FlowRecord& f = m_flows[id];
    Time now = FabricNow();
    if (f.deliveredBytes == 0)
    {
        f.firstRx = now;
    }
    f.lastRx = now;
    f.deliveredBytes += payloadBytes;
    f.ecnMarkedFrames += ecnMarked ? 1 : 0;
    CheckFinished(f);
}

void
FlowTable::CheckFinished(FlowRecord& f)
{
    // A reliable flow finishes when its sender sees the last ACK (Completed); a raw flow when
    // every byte has been delivered or lost.
    if (!f.reliable && f.deliveredBytes + f.droppedBytes >= f.bytes)
    {
        MarkFinished(f);
    }
}

void
FlowTable::MarkFinished(FlowRecord& f)
{
    if (f.finished)
    {
        return;
    }
    f.finished = true;
    f.finish = FabricNow();
    uint32_t id = f.id; // a listener may add flows, which moves the records
    for (const auto& listener : m_flowFinished)
    {
        listener(id);
    }
    if (++m_finished == m_flows.size() && !m_allFinished.IsNull())
    {
        m_allFinished();
    }
}

void
FlowTable::Completed(uint32_t id)
{
    MarkFinished(m_flows[id]);
}

void
FlowTable::Discarded(uint32_t id, uint32_t payloadBytes)
{
    m_flows[id].discardedBytes += payloadBytes;
}

void
FlowTable::Dropped(uint32_t id, uint32_t payloadBytes)
{
    if (id < m_flows.size())
    {
        m_flows[id].droppedBytes += payloadBytes;
        CheckFinished(m_flows[id]);
    }
}

} // namespace ns3
