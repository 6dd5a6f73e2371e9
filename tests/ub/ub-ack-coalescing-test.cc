// Unified Bus ACK coalescing (ub.ack_interval, docs/models.md "Unified Bus ACK frequency"): a
// lone request of n packets on a 2-host star (unlimited window: the sender never requests an
// ACK), the receiver ACKing every N accepted packets, at once on its last packet and at once
// when the congestion mark changes. The counts are derived
// by hand: ceil(n / N) ACKs when nothing is marked. With the receiver's cable at a quarter of
// the sender's rate and CE marked at dequeue whenever a byte stays queued behind the frame,
// packet 1 leaves an empty queue (unmarked), packets 2 .. n-1 leave the next ones queued
// (marked) and packet n leaves the queue empty (unmarked): ACKs at packet 2 (mark set), after
// every N of packets 3 .. n-1, and at packet n (last, mark cleared): 2 + floor((n - 3) / N).
// The last packet is ACKed at once whatever N is, so the request completes at the same
// picosecond.

#include "ub-test-util.h"

namespace ns3
{
namespace test
{
namespace
{

const DataRate kRate("400Gbps");
constexpr uint32_t kMtu = 4096;

struct LoneFlow
{
    uint64_t acks = 0; ///< frames the receiver's NIC port sent (ACKs only: nothing else flows)
    uint64_t dataFrames = 0;
    Time finish;
    bool finished = false;
};

class UbAckCoalescing : public SimTest
{
  protected:
    /// h1 -> h0, \p bytes, receiver ACKing every \p interval packets; \p slowReceiver: h0's
    /// cable at 100 Gb/s and a CE marking step at 1 byte of queue, decided at dequeue.
    LoneFlow Run(uint64_t bytes, uint32_t interval, bool slowReceiver)
    {
        Set("ns3::UbNic::AckInterval", std::to_string(interval));
        Set("ns3::UbNic::Mtu", std::to_string(kMtu));
        Set("ns3::UbNic::CongestionControl", "ns3::UbFixedWindow"); // window 0: unlimited
        Set("ns3::FabricSwitch::EcnEnabled", slowReceiver ? "true" : "false");
        TopologySpec spec = MakeStar(2, kRate, NanoSeconds(150));
        if (slowReceiver)
        {
            Set("ns3::FabricSwitch::EcnKmin", "1B");
            Set("ns3::FabricSwitch::EcnKmax", "1B");
            Set("ns3::FabricSwitch::EcnPmax", "1");
            Set("ns3::FabricSwitch::EcnMarkPoint", "dequeue");
            EXPECT_EQ(spec.links[0].a, 0u); // h0's cable
            spec.links[0].rate = DataRate("100Gbps");
        }
        FabricNetwork net = FabricNetwork::Build(spec, 0, 1);
        std::vector<Ptr<UbNic>> nics = InstallUb(net);
        uint32_t id = PostUb(net, nics, {1, 0, bytes});
        Simulator::Stop(MilliSeconds(5));
        Simulator::Run();
        LoneFlow r;
        r.acks = net.GetDevice(net.NodeOfHost(0), 0)->GetTxFrames();
        r.dataFrames = net.GetDevice(net.NodeOfHost(1), 0)->GetTxFrames();
        const FlowRecord& f = net.GetFlowTable()->Get(id);
        r.finished = f.finished;
        r.finish = f.finish;
        TearDown();
        SetUp();
        return r;
    }
};

uint64_t
CeilDiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

TEST_F(UbAckCoalescing, LoneFlowSendsCeilNOverIntervalAcksAndFinishesAtTheSameTime)
{
    // 11 packets (10 full, one of 100 bytes) and 512 packets (2 MiB).
    for (uint64_t bytes : {uint64_t(10 * kMtu + 100), uint64_t(2 * 1024 * 1024)})
    {
        const uint64_t n = CeilDiv(bytes, kMtu);
        LoneFlow every = Run(bytes, 1, false);
        ASSERT_TRUE(every.finished);
        EXPECT_EQ(every.dataFrames, n);
        EXPECT_EQ(every.acks, n);
        for (uint32_t interval : {2u, 3u, 4u, 16u})
        {
            SCOPED_TRACE("bytes " + std::to_string(bytes) + ", N " + std::to_string(interval));
            LoneFlow r = Run(bytes, interval, false);
            ASSERT_TRUE(r.finished);
            EXPECT_EQ(r.dataFrames, n);
            EXPECT_EQ(r.acks, CeilDiv(n, interval));
            EXPECT_EQ(r.finish, every.finish); // the last packet is ACKed at once either way
        }
    }
}

TEST_F(UbAckCoalescing, AChangeOfTheCongestionMarkIsAckedAtOnce)
{
    const uint64_t bytes = 2 * 1024 * 1024;
    const uint64_t n = bytes / kMtu;
    LoneFlow every = Run(bytes, 1, true);
    ASSERT_TRUE(every.finished);
    EXPECT_EQ(every.acks, n);
    for (uint32_t interval : {2u, 3u, 4u, 16u})
    {
        SCOPED_TRACE("N " + std::to_string(interval));
        LoneFlow r = Run(bytes, interval, true);
        ASSERT_TRUE(r.finished);
        EXPECT_EQ(r.acks, 2 + (n - 3) / interval);
        EXPECT_EQ(r.finish, every.finish);
    }
}

} // namespace
} // namespace test
} // namespace ns3
