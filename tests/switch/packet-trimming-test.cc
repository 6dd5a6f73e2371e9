// Packet trimming (FabricSwitch TrimEnabled; NDP, Handley et al., SIGCOMM 2017) against the
// timeline of a three-to-one incast in a lossy fabric.
//
// Star of 4 hosts on one switch, 400 Gb/s, 150 ns cables (d), PFC off, a 6000 B buffer. Hosts
// 1, 2 and 3 each send one 4096 B packet to host 0 at t = 0 (RoCE, selective repeat). A data
// frame (4154 B + 24 B wire overhead) takes T_f, a trimmed header (58 B + 24) T_h, an ACK/NAK
// (62 B + 24) T_a. The three frames are at the switch at T0 = T_f + d. The first is sent at
// once (its buffer is released when it leaves), the second waits (4154 B of 6000), the third
// does not fit: without trimming it is dropped; with trimming its 58 B header is kept and, at
// priority 7, leaves right after the first frame: [T0 + T_f, + T_h], at host 0 d later. Host 0
// is still sending its ACK of the first frame (from T0 + T_f + d, for T_a > T_h), so its NAK
// leaves at T0 + T_f + d + T_a and reaches the sender after two more (T_a + d): at
// t_nak = T0 + T_f + 3 T_a + 3 d. The sender's port is idle: the packet is sent again at once
// and is at host 0, through an idle switch port, at t_nak + 2 T_f + 2 d.

#include "../fabric-sim-util.h"
#include "../ub/ub-test-util.h"
#include "record/conservation.h"
#include "roce/rdma-nic.h"
#include "switch/fabric-switch.h"
#include "wire/roce-frame-header.h"

namespace ns3
{
namespace test
{
namespace
{

constexpr uint32_t kMtu = 4096;
const DataRate kRate("400Gbps");
const double kD = 150e-9;

class PacketTrimming : public SimTest
{
  protected:
    struct Result
    {
        std::vector<FlowRecord> flows;
        uint64_t trimmedFrames = 0;
        uint64_t trimmedBytes = 0;
        uint64_t droppedFrames = 0;
        uint64_t nacks = 0;
        bool conserved = false;
        std::vector<uint32_t> traced; ///< cut bytes reported by the Trim trace source
    };

    void Traced(uint32_t flow, uint32_t port, uint32_t bytes)
    {
        m_traced.push_back(bytes);
    }

    std::vector<uint32_t> m_traced;

    Result Run(bool trim)
    {
        Set("ns3::RdmaNic::Recovery", "sr");
        Set("ns3::RdmaNic::Mtu", std::to_string(kMtu));
        Set("ns3::FabricSwitch::EcnEnabled", "false");
        Set("ns3::FabricSwitch::TrimEnabled", trim ? "true" : "false");
        Set("ns3::SharedBufferMmu::PfcEnabled", "false");
        Set("ns3::SharedBufferMmu::BufferSize", "6000B");
        FabricNetwork net = FabricNetwork::Build(MakeStar(4, kRate, NanoSeconds(150)), 0, 0);
        net.GetSwitch(net.PeerOf(net.NodeOfHost(0), 0).node)
            ->TraceConnectWithoutContext("Trim", MakeCallback(&PacketTrimming::Traced, this));
        std::vector<Ptr<RdmaNic>> nics;
        for (uint32_t h = 0; h < 4; ++h)
        {
            nics.push_back(CreateObject<RdmaNic>());
            nics.back()->Install(net.GetHost(h));
        }
        for (uint32_t src = 1; src <= 3; ++src)
        {
            FlowRecord rec;
            rec.src = src;
            rec.dst = 0;
            rec.bytes = kMtu;
            rec.priority = 3;
            rec.entropy = static_cast<uint16_t>(50000 + src);
            nics[src]->StartFlowAt(net.GetFlowTable()->Add(rec));
        }
        Simulator::Run();
        Result r;
        r.flows = net.GetFlowTable()->All();
        Ptr<FabricSwitch> sw = net.GetSwitch(net.PeerOf(net.NodeOfHost(0), 0).node);
        r.trimmedFrames = sw->GetTrimmedFrames();
        r.trimmedBytes = sw->GetTrimmedBytes();
        r.droppedFrames = sw->GetDroppedFrames();
        r.traced = m_traced;
        r.nacks = nics[0]->GetTrimmedReceived();
        r.conserved = CheckConservation(net).Ok();
        return r;
    }

    /// The flow whose packet the switch could not hold (dropped or trimmed); exactly one.
    static const FlowRecord& Victim(const Result& r)
    {
        const FlowRecord* victim = nullptr;
        for (const FlowRecord& f : r.flows)
        {
            if (f.droppedBytes > 0)
            {
                EXPECT_EQ(victim, nullptr) << "more than one flow lost its packet";
                victim = &f;
            }
        }
        EXPECT_NE(victim, nullptr);
        return *victim;
    }
};

TEST_F(PacketTrimming, AWouldBeDropBecomesAHeaderAndAnImmediateResend)
{
    Result r = Run(true);
    EXPECT_EQ(r.trimmedFrames, 1u);
    EXPECT_EQ(r.trimmedBytes, kMtu);
    EXPECT_EQ(r.traced, std::vector<uint32_t>{kMtu});
    EXPECT_EQ(r.droppedFrames, 0u);
    EXPECT_EQ(r.nacks, 1u);
    const FlowRecord& v = Victim(r);
    EXPECT_TRUE(v.finished);
    EXPECT_EQ(v.droppedBytes, kMtu); // the payload the switch cut
    EXPECT_EQ(v.retransmittedBytes, kMtu);
    EXPECT_EQ(v.deliveredBytes, kMtu);
    for (const FlowRecord& f : r.flows)
    {
        EXPECT_TRUE(f.finished);
        if (&f != &v)
        {
            EXPECT_EQ(f.retransmittedBytes, 0u);
        }
    }
    double tf = FrameSeconds(kMtu + kRoceFrameOverhead, 24, kRate);
    double th = FrameSeconds(kRoceFrameOverhead, 24, kRate);
    double ta = FrameSeconds(kRoceFrameOverhead + 4, 24, kRate);
    ASSERT_LT(th, ta); // the NAK waits for the ACK of the first frame
    double t0 = tf + kD;
    double nakAtSender = t0 + tf + 3 * ta + 3 * kD;
    double resentAtReceiver = nakAtSender + 2 * tf + 2 * kD;
    // Serialization rounds up to whole picoseconds: at most 1 ps per frame on the path.
    EXPECT_NEAR(v.lastRx.GetSeconds(), resentAtReceiver, 10e-12);
    EXPECT_TRUE(r.conserved);
}

TEST_F(PacketTrimming, WithoutTrimmingTheFrameIsDroppedAndResentOnlyAtTheTimeout)
{
    Result r = Run(false);
    EXPECT_EQ(r.trimmedFrames, 0u);
    EXPECT_EQ(r.droppedFrames, 1u);
    const FlowRecord& v = Victim(r);
    EXPECT_TRUE(v.finished);
    EXPECT_EQ(v.retransmittedBytes, kMtu);
    // Nothing reaches host 0 to say the packet is missing: the sender waits for its timeout.
    TimeValue rto;
    Ptr<RdmaNic> probe = CreateObject<RdmaNic>();
    probe->GetAttribute("RtoLow", rto);
    EXPECT_GT(v.lastRx, rto.Get());
    EXPECT_TRUE(r.conserved);
}

TEST_F(PacketTrimming, UnifiedBusResendsATrimmedPacketAtOnce)
{
    // The same incast with Unified Bus requests and a 1 ms retransmission timeout: the trimmed
    // header is NACKed, the sender resends at once, and the request completes a few frame times
    // after the others instead of after the timeout.
    Set("ns3::UbNic::CongestionControl", "ns3::UbFixedWindow");
    Set("ns3::UbNic::Rto", "1ms");
    Set("ns3::UbNic::Mtu", std::to_string(kMtu));
    Set("ns3::FabricSwitch::EcnEnabled", "false");
    Set("ns3::FabricSwitch::TrimEnabled", "true");
    Set("ns3::SharedBufferMmu::PfcEnabled", "false");
    Set("ns3::SharedBufferMmu::BufferSize", "6000B");
    FabricNetwork net = FabricNetwork::Build(MakeStar(4, kRate, NanoSeconds(150)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    std::vector<uint32_t> ids;
    for (uint32_t src = 1; src <= 3; ++src)
    {
        ids.push_back(PostUb(net, nics, {src, 0, kMtu}));
    }
    Simulator::Run();
    Ptr<FabricSwitch> sw = net.GetSwitch(net.PeerOf(net.NodeOfHost(0), 0).node);
    EXPECT_EQ(sw->GetTrimmedFrames(), 1u);
    EXPECT_EQ(sw->GetDroppedFrames(), 0u);
    EXPECT_EQ(nics[0]->GetTrimmedReceived(), 1u);
    uint64_t resent = 0;
    for (uint32_t id : ids)
    {
        const FlowRecord& f = net.GetFlowTable()->Get(id);
        EXPECT_TRUE(f.finished);
        EXPECT_EQ(f.deliveredBytes, kMtu);
        resent += f.retransmittedBytes;
        // Three frames, a header, a NACK and a resend: well under 2 us, against 1 ms.
        EXPECT_LT(f.lastRx, MicroSeconds(2));
    }
    EXPECT_EQ(resent, kMtu);
    EXPECT_TRUE(CheckConservation(net).Ok());
}

} // namespace
} // namespace test
} // namespace ns3
