// The model's trace sources, hooked the ns-3 way with Config::Connect: queue depth of every port
// (FabricNetDevice QueueBytes), PFC pauses and resumes (PfcReceived), switch drops (Drop) and the
// rate each RoCE sender paces at (RdmaNic CcRate, changed by DCQCN), on an 8:1 RoCE incast.
//
//   cmake --build build --target trace-hooks && build/trace-hooks [--senders=8]
//
// Prints what the hooks saw next to the switch's own counters; exit status 0 when they agree.

#include "build/fabric-builder.h"
#include "config/topology-generators.h"
#include "roce/rdma-nic.h"

#include "ns3/command-line.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <cstdio>
#include <map>
#include <string>

using namespace ns3;

namespace
{

/// What the hooks saw.
struct Seen
{
    std::map<std::string, uint64_t> maxQueue; ///< by trace context (node, device)
    uint64_t pauses = 0;                      ///< PFC frames with quanta > 0 received
    uint64_t resumes = 0;                     ///< quanta 0
    uint64_t drops = 0;
    uint64_t rateChanges = 0;
    DataRate lowestRate{"1000Gbps"};
} g_seen;

void
QueueBytes(std::string context, uint8_t priority, uint64_t bytes)
{
    uint64_t& m = g_seen.maxQueue[context];
    m = std::max(m, bytes);
}

void
PfcReceived(std::string context, uint8_t priority, uint16_t quanta)
{
    (quanta > 0 ? g_seen.pauses : g_seen.resumes)++;
}

void
Drop(std::string context, uint32_t flow, uint32_t payloadBytes, uint8_t reason)
{
    ++g_seen.drops;
}

void
CcRate(std::string context, uint32_t flow, DataRate oldRate, DataRate newRate)
{
    ++g_seen.rateChanges;
    g_seen.lowestRate = std::min(g_seen.lowestRate, newRate);
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t senders = 8;
    CommandLine cmd(__FILE__);
    cmd.AddValue("senders", "hosts sending to host 0", senders);
    cmd.Parse(argc, argv);

    // Lossless priority 3 with PFC, a low XOFF so that the incast pauses the senders, and DCQCN.
    Config::SetDefault("ns3::SharedBufferMmu::PfcEnabled", StringValue("true"));
    Config::SetDefault("ns3::SharedBufferMmu::LosslessPriorities", StringValue("8"));
    Config::SetDefault("ns3::SharedBufferMmu::XoffThreshold", StringValue("64KiB"));
    Config::SetDefault("ns3::RdmaNic::CongestionControl",
                       StringValue("ns3::DcqcnCongestionControl"));
    const DataRate rate("100Gbps");
    FabricNetwork net = FabricNetwork::Build(MakeStar(senders + 1, rate, NanoSeconds(150)), 0, 0);
    std::vector<Ptr<RdmaNic>> nics;
    for (uint32_t h = 0; h < net.GetNHosts(); ++h)
    {
        Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
        nic->Install(net.GetHost(h));
        net.GetNode(net.NodeOfHost(h))->AggregateObject(nic); // reachable by Config paths
        nics.push_back(nic);
    }
    for (uint32_t s = 1; s <= senders; ++s)
    {
        FlowRecord f;
        f.src = s;
        f.dst = 0;
        f.bytes = 1 << 20;
        f.priority = 3; // the lossless class
        f.entropy = static_cast<uint16_t>(49152 + s);
        nics[s]->StartFlowAt(net.GetFlowTable()->Add(f));
    }

    Config::Connect("/NodeList/*/DeviceList/*/$ns3::FabricNetDevice/QueueBytes",
                    MakeCallback(&QueueBytes));
    Config::Connect("/NodeList/*/DeviceList/*/$ns3::FabricNetDevice/PfcReceived",
                    MakeCallback(&PfcReceived));
    Config::Connect("/NodeList/*/$ns3::FabricSwitch/Drop", MakeCallback(&Drop));
    Config::Connect("/NodeList/*/$ns3::RdmaNic/CcRate", MakeCallback(&CcRate));
    Simulator::Run();

    // The switch's own counters, for comparison.
    uint32_t swNode = net.PeerOf(net.NodeOfHost(0), 0).node;
    Ptr<FabricSwitch> sw = net.GetSwitch(swNode);
    uint32_t toReceiver = net.PeerOf(net.NodeOfHost(0), 0).port;
    uint64_t pfcSent = 0;
    for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
    {
        pfcSent += sw->GetPort(p)->GetPfcFramesSent();
    }
    std::string receiverPort = "/NodeList/" + std::to_string(swNode) + "/DeviceList/" +
                               std::to_string(toReceiver) + "/$ns3::FabricNetDevice/QueueBytes";
    uint64_t tracedMax = g_seen.maxQueue[receiverPort];
    std::printf("queue toward the receiver: %llu B traced, %llu B by the switch\n",
                (unsigned long long)tracedMax,
                (unsigned long long)sw->GetMaxQueueBytes(toReceiver));
    std::printf("PFC frames: %llu pauses + %llu resumes traced, %llu sent by the switch\n",
                (unsigned long long)g_seen.pauses,
                (unsigned long long)g_seen.resumes,
                (unsigned long long)pfcSent);
    std::printf("drops: %llu traced, %llu counted\n",
                (unsigned long long)g_seen.drops,
                (unsigned long long)sw->GetDroppedFrames());
    std::printf("DCQCN rate changes: %llu, lowest rate %.3f Gb/s\n",
                (unsigned long long)g_seen.rateChanges,
                g_seen.lowestRate.GetBitRate() / 1e9);
    bool agree = tracedMax == sw->GetMaxQueueBytes(toReceiver) && g_seen.pauses > 0 &&
                 g_seen.pauses + g_seen.resumes == pfcSent &&
                 g_seen.drops == sw->GetDroppedFrames() && g_seen.rateChanges > 0 &&
                 g_seen.lowestRate < rate;
    Simulator::Destroy();
    return agree ? 0 : 1;
}
