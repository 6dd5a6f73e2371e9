// The ns-3 contract of FabricNetDevice: its TypeId (the attributes of the port and of its parts,
// the trace sources), addresses, MTU, link state callbacks, and Send(), which queues an Ethernet
// frame (what arrives for a device with no fabric owner goes up
// through the receive callbacks: FabricNetDevice::DeliverUp). The fabric itself does not use
// ns-3's IP stack, so this is a thin compatibility path and addresses are plain MACs.

#include "fabric-net-device.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/ethernet-header.h"
#include "ns3/node.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricNetDevice);

TypeId
FabricNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("Fabric")
            .AddConstructor<FabricNetDevice>()
            .AddAttribute("DataRate",
                          "Line rate of the port, per direction.",
                          DataRateValue(DataRate("400Gbps")),
                          MakeDataRateAccessor(&FabricNetDevice::m_rate),
                          MakeDataRateChecker())
            .AddAttribute("Mtu",
                          "Largest frame payload the port accepts (bytes).",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&FabricNetDevice::m_mtu),
                          MakeUintegerChecker<uint16_t>(64))
            .AddAttribute("WireOverhead",
                          "Bytes each frame occupies on the wire beyond its stored bytes: "
                          "preamble+SFD (8), FCS (4) and inter-frame gap (12). Set 0 to "
                          "compare with formulas that ignore them.",
                          UintegerValue(24),
                          MakeUintegerAccessor(&FabricNetDevice::m_wireOverhead),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute(
                "Scheduler",
                "Egress scheduling among the 8 priorities.",
                EnumValue(STRICT_PRIORITY),
                MakeEnumAccessor(&FabricNetDevice::SetScheduler, &FabricNetDevice::GetScheduler),
                MakeEnumChecker(STRICT_PRIORITY, "strict", DWRR, "dwrr"))
            .AddAttribute("DwrrQuantum",
                          "Bytes each priority may send per DWRR round (equal weights).",
                          UintegerValue(9216),
                          MakeUintegerAccessor(&FabricNetDevice::SetDwrrQuantum,
                                               &FabricNetDevice::GetDwrrQuantum),
                          MakeUintegerChecker<uint32_t>(64))
            .AddAttribute(
                "LossRate",
                "Probability that a frame arriving on this port is lost on the cable "
                "(bit errors); PFC frames excepted. Lost frames are counted as drops.",
                DoubleValue(0.0),
                MakeDoubleAccessor(&FabricNetDevice::SetLossRate, &FabricNetDevice::GetLossRate),
                MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("FlowControl",
                          "Link-level flow control of the lossless priorities: pfc (pauses from "
                          "the switch) or cbfc (credits: a frame of a credited lane leaves only "
                          "with the credits its cells need).",
                          EnumValue(FLOW_CONTROL_PFC),
                          MakeEnumAccessor(&FabricNetDevice::m_flowControl),
                          MakeEnumChecker(FLOW_CONTROL_PFC, "pfc", FLOW_CONTROL_CBFC, "cbfc"))
            .AddAttribute("CreditCell",
                          "CBFC: bytes of buffer one credit stands for; a frame of b bytes "
                          "needs ceil(b / cell) credits.",
                          QueueSizeValue(QueueSize("256B")),
                          MakeQueueSizeAccessor(&FabricNetDevice::m_creditCell),
                          MakeQueueSizeChecker())
            .AddAttribute("CreditBuffer",
                          "CBFC: receive buffer each credited lane of a port advertises to its "
                          "peer (rounded down to whole cells): the credits of that lane.",
                          QueueSizeValue(QueueSize("128KiB")),
                          MakeQueueSizeAccessor(&FabricNetDevice::m_creditBuffer),
                          MakeQueueSizeChecker())
            .AddAttribute("CreditShared",
                          "CBFC: false gives every credited lane its own CreditBuffer; true "
                          "lets all credited lanes of the port share one CreditBuffer.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FabricNetDevice::m_creditShared),
                          MakeBooleanChecker())
            .AddAttribute("CreditLanes",
                          "CBFC: bit mask of the priorities under credit (bit i = priority i); "
                          "the scenario sets the lossless priorities.",
                          UintegerValue(0x08),
                          MakeUintegerAccessor(&FabricNetDevice::m_creditLanes),
                          MakeUintegerChecker<uint8_t>())
            .AddAttribute("CreditReturnInterval",
                          "CBFC: 0 returns freed credits at once (one credit frame per freeing, "
                          "merged while one waits to be sent); otherwise at most one credit "
                          "frame per interval carries everything freed.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&FabricNetDevice::SetCreditReturnInterval,
                                           &FabricNetDevice::GetCreditReturnInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("CreditSyncInterval",
                          "CBFC credit-loss recovery: this long after a credit UPDATE the "
                          "receiver sends a SYNC with its cumulative returns; a sender stalled "
                          "this long without a credit asks for one. 0 turns recovery off.",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&FabricNetDevice::SetCreditSyncInterval,
                                           &FabricNetDevice::GetCreditSyncInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RxLatency",
                          "Pipelines a data frame crosses after its last bit arrived and before "
                          "the port's owner sees it: at a NIC, the sending NIC's TX pipeline "
                          "and its own RX pipeline (a NIC's host path sets it; "
                          "docs/models.md#remote-read-stages). FIFO, at line rate; PFC and "
                          "credit frames are MAC control and bypass it.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&FabricNetDevice::m_rxLatency),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("PfcReceived",
                            "A PFC frame arrived: priority and pause quanta (0 = resume).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_pfcReceivedTrace),
                            "ns3::FabricNetDevice::PfcTracedCallback")
            .AddTraceSource("PfcSent",
                            "A PFC frame was queued for sending: priority and pause quanta.",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_pfcSentTrace),
                            "ns3::FabricNetDevice::PfcTracedCallback")
            .AddTraceSource("QueueBytes",
                            "An egress queue changed: priority and its new occupancy in bytes.",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_queueBytesTrace),
                            "ns3::FabricNetDevice::QueueBytesTracedCallback")
            .AddTraceSource("Sniffer",
                            "Every frame as it starts transmission and as it is received.",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_snifferTrace),
                            "ns3::FabricNetDevice::FrameTracedCallback");
    return tid;
}

void
FabricNetDevice::SetCreditReturnInterval(Time interval)
{
    m_creditReturnInterval = interval;
    if (m_credits)
    {
        m_credits->SetReturnInterval(interval);
    }
}

void
FabricNetDevice::SetCreditSyncInterval(Time interval)
{
    m_creditSyncInterval = interval;
    if (m_credits)
    {
        m_credits->SetSyncInterval(interval);
    }
}

void
FabricNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
FabricNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
FabricNetDevice::GetChannel() const
{
    return m_channel;
}

void
FabricNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
FabricNetDevice::GetAddress() const
{
    return m_address;
}

bool
FabricNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
FabricNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
FabricNetDevice::IsLinkUp() const
{
    return m_channel != nullptr && m_faults.IsLinkUp();
}

void
FabricNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChangeCallbacks.ConnectWithoutContext(callback);
}

bool
FabricNetDevice::IsBroadcast() const
{
    return true;
}

Address
FabricNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
FabricNetDevice::IsMulticast() const
{
    return false;
}

Address
FabricNetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    return Mac48Address::GetMulticast(multicastGroup);
}

Address
FabricNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
FabricNetDevice::IsPointToPoint() const
{
    return true;
}

bool
FabricNetDevice::IsBridge() const
{
    return false;
}

bool
FabricNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    EthernetHeader eth(false);
    eth.SetSource(m_address);
    eth.SetDestination(Mac48Address::ConvertFrom(dest));
    eth.SetLengthType(protocolNumber);
    packet->AddHeader(eth);
    QueuedFrame item;
    item.bytes = packet->GetSize();
    item.frame = packet;
    Enqueue(std::move(item));
    return true;
}

bool
FabricNetDevice::SendFrom(Ptr<Packet> packet,
                          const Address& source,
                          const Address& dest,
                          uint16_t protocolNumber)
{
    return Send(packet, dest, protocolNumber);
}

Ptr<Node>
FabricNetDevice::GetNode() const
{
    return m_node;
}

void
FabricNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
FabricNetDevice::NeedsArp() const
{
    return false;
}

void
FabricNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
FabricNetDevice::SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb)
{
    m_promiscCallback = cb;
}

bool
FabricNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
