// The host's one port scheduler (FabricHost::ServePort): whatever transport feeds the port, a
// sender paused by PFC resumes at the exact end of the pause when no XON comes (a pause that
// expires by itself: the XON was lost with a link that went down, or a peer that only ever sends
// timed pauses). Before the scheduler was shared, the Unified Bus NIC armed no wake-up for a
// pause's end: it resumed only when an ACK or its retransmission timer happened to call it.

#include "../fabric-sim-util.h"
#include "roce/rdma-nic.h"
#include "ub/ub-nic.h"
#include "wire/pfc-pause-header.h"

namespace ns3
{
namespace test
{
namespace
{

const DataRate kRate("400Gbps");
constexpr uint16_t kQuanta = 20000; ///< 20000 x 512 bit times at 400 Gb/s = 25.6 us
constexpr uint8_t kPriority = 3;

enum class Transport
{
    RAW,
    ROCE,
    UB
};

struct PauseRun
{
    Time pauseArrived;        ///< when the PFC frame reached host 0
    Time pausedUntil;         ///< host 0's pause end, read at its arrival
    Time firstDataAfterPause; ///< first data frame host 0 started after the arrival
    uint64_t dataFramesInPause = 0;
};

class PortScheduler : public SimTest, public ::testing::WithParamInterface<Transport>
{
  protected:
    PauseRun Run(Transport transport)
    {
        Set("ns3::FabricSwitch::EcnEnabled", "false");
        Set("ns3::UbNic::CongestionControl", "ns3::UbFixedWindow");
        // Neither the RoCE nor the UB retransmission timer may fire during the pause: the
        // only thing that can wake the sender at its end is the port scheduler.
        Set("ns3::RdmaNic::RtoLow", "1ms");
        Set("ns3::RdmaNic::RtoHigh", "1ms");
        Set("ns3::UbNic::Rto", "1ms");
        FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, NanoSeconds(150)), 0, 0);
        std::vector<Ptr<HostTransport>> nics;
        for (uint32_t h = 0; h < 2 && transport != Transport::RAW; ++h)
        {
            Ptr<HostTransport> nic;
            if (transport == Transport::ROCE)
            {
                nic = CreateObject<RdmaNic>();
            }
            else
            {
                nic = CreateObject<UbNic>();
            }
            nic->Install(net.GetHost(h));
            nics.push_back(nic);
        }
        FlowRecord rec;
        rec.src = 0;
        rec.dst = 1;
        rec.bytes = 8 << 20; // ~170 us at line rate: still sending when the pause ends
        rec.priority = kPriority;
        rec.entropy = 49153;
        uint32_t id = net.GetFlowTable()->Add(rec);
        if (nics.empty())
        {
            net.GetHost(0)->StartFlowAt(id);
        }
        else
        {
            nics[0]->StartFlowAt(id);
        }

        Ptr<FabricNetDevice> nic = net.GetHost(0)->GetPort(0);
        Ptr<FabricNetDevice> switchPort = nic->GetPeer();
        PauseRun r;
        // One timed pause from the switch at 5 us, never followed by an XON.
        Simulator::Schedule(MicroSeconds(5),
                            [switchPort]() { switchPort->SendPause(kPriority, kQuanta); });
        nic->TraceConnectWithoutContext(
            "PfcReceived",
            MakeBoundCallback(
                +[](PauseRun* r, Ptr<FabricNetDevice> nic, uint8_t priority, uint16_t quanta) {
                    if (priority == kPriority && quanta > 0 && r->pauseArrived.IsZero())
                    {
                        r->pauseArrived = Simulator::Now();
                        // The trace fires before the port applies the pause.
                        Simulator::ScheduleNow(
                            [r, nic]() { r->pausedUntil = nic->GetPausedUntil(kPriority); });
                    }
                },
                &r,
                nic));
        nic->TraceConnectWithoutContext(
            "Sniffer",
            MakeBoundCallback(
                +[](PauseRun* r, Ptr<FabricNetDevice> nic, Ptr<const Packet> frame) {
                    FrameInfo info;
                    bool sentHere = ParseFrame(frame, &info) && info.srcIp == HostIpv4(0).Get() &&
                                    info.frameBytes > 1000;
                    if (!sentHere || r->pauseArrived.IsZero())
                    {
                        return;
                    }
                    if (Simulator::Now() < r->pausedUntil)
                    {
                        ++r->dataFramesInPause;
                    }
                    else if (r->firstDataAfterPause.IsZero())
                    {
                        r->firstDataAfterPause = Simulator::Now();
                    }
                },
                &r,
                nic));
        Simulator::Stop(MicroSeconds(60));
        Simulator::Run();
        return r;
    }
};

TEST_P(PortScheduler, SenderResumesAtTheExactEndOfAPauseThatNoXonEnds)
{
    PauseRun r = Run(GetParam());
    // The PFC frame (60 B + 24 B wire overhead) leaves the switch at 5 us, behind at most the
    // data frame in transmission, and crosses the 150 ns cable.
    ASSERT_FALSE(r.pauseArrived.IsZero()) << "the pause never reached the sender";
    Time quantum = BitsAtRate(512, kRate, true);
    EXPECT_EQ(r.pausedUntil, r.pauseArrived + quantum * kQuanta);
    EXPECT_EQ(r.pausedUntil - r.pauseArrived, NanoSeconds(25600));
    // Nothing of the paused priority starts during the pause (the frame in transmission when
    // it arrived finishes; it started before)...
    EXPECT_EQ(r.dataFramesInPause, 0u);
    // ...and the next data frame starts exactly when the pause ends.
    EXPECT_EQ(r.firstDataAfterPause, r.pausedUntil);
}

INSTANTIATE_TEST_SUITE_P(EveryTransport,
                         PortScheduler,
                         ::testing::Values(Transport::RAW, Transport::ROCE, Transport::UB),
                         [](const ::testing::TestParamInfo<Transport>& p) {
                             return p.param == Transport::RAW    ? std::string("Raw")
                                    : p.param == Transport::ROCE ? std::string("Roce")
                                                                 : std::string("Ub");
                         });

} // namespace
} // namespace test
} // namespace ns3
