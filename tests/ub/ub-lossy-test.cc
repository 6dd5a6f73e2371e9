// Robustness: Unified Bus requests over cables that lose a fraction of every kind of frame
// (DATA, ACKs with SACK bitmaps and execution notices). Whatever is lost, each request must be
// delivered exactly once, in order, executed after its predecessors, completed at the
// requester, and the end-of-run audits and byte conservation must hold.

#include "ub-test-util.h"

#include "ns3/rng-seed-manager.h"

#include <cstdlib>
#include <sstream>

namespace ns3
{
namespace test
{
namespace
{

const DataRate kRate("400Gbps");

class UbLossy : public SimTest
{
};

// UB_LOSS (loss rate) and UB_RUNS (seeds) in the environment make these tests harsher.

TEST_F(UbLossy, EveryRequestCompletesExactlyOnceDespiteRandomLoss)
{
    const uint32_t runs = getenv("UB_RUNS") ? std::atoi(getenv("UB_RUNS")) : 4;
    for (uint32_t run = 1; run <= runs; ++run)
    {
        SCOPED_TRACE("run " + std::to_string(run));
        RngSeedManager::SetRun(run);
        Set("ns3::FabricNetDevice::LossRate", getenv("UB_LOSS") ? getenv("UB_LOSS") : "0.02");
        Set("ns3::UbNic::CongestionControl", "ns3::UbFixedWindow");
        Set("ns3::UbNic::RtoMode", "fixed");
        Set("ns3::UbNic::Rto", "20us");
        Set("ns3::FabricSwitch::EcnEnabled", "false");
        FabricNetwork net = FabricNetwork::Build(MakeStar(3, kRate, NanoSeconds(150)), 0, run);
        std::vector<Ptr<UbNic>> nics = InstallUb(net);
        std::vector<uint32_t> ids;
        // h1 -> h0: a large request, an unordered one, a strict one and one after the first;
        // h2 -> h0 on two Jettys; h0 -> h2 the other way (ACKs and data share cables).
        uint32_t a = PostUb(net, nics, {1, 0, 512 * 1024});
        ids.push_back(a);
        ids.push_back(PostUb(net, nics, {1, 0, 32 * 1024, Time(0), 0, UbOrder::NONE}));
        ids.push_back(PostUb(net, nics, {1, 0, 32 * 1024, Time(0), 0, UbOrder::STRICT}));
        ids.push_back(PostUb(net, nics, {1, 0, 8 * 1024, Time(0), 0, UbOrder::AFTER, {a}}));
        ids.push_back(PostUb(net, nics, {2, 0, 256 * 1024, Time(0), 0}));
        ids.push_back(PostUb(net, nics, {2, 0, 256 * 1024, MicroSeconds(3), 1}));
        ids.push_back(PostUb(net, nics, {0, 2, 256 * 1024, MicroSeconds(1), 0}));
        Simulator::Stop(MilliSeconds(50));
        Simulator::Run();
        Ptr<FlowTable> ft = net.GetFlowTable();
        uint64_t dropped = 0;
        for (uint32_t id : ids)
        {
            const FlowRecord& f = ft->Get(id);
            EXPECT_TRUE(f.finished) << "flow " << id << ": " << nics[f.src]->StuckReason(id);
            EXPECT_EQ(f.deliveredBytes, f.bytes) << "flow " << id;
            EXPECT_GE(f.executed, f.lastRx) << "flow " << id;
            EXPECT_GE(f.finish, f.executed) << "flow " << id;
            dropped += f.droppedBytes;
        }
        EXPECT_GT(dropped, 0u);                                   // the cables did lose data
        EXPECT_GE(ft->Get(ids[2]).executed, ft->Get(a).executed); // strict after A (and B)
        EXPECT_GE(ft->Get(ids[2]).executed, ft->Get(ids[1]).executed);
        EXPECT_GE(ft->Get(ids[3]).executed, ft->Get(a).executed); // after [A]
        ConservationReport cons = CheckConservation(net);
        EXPECT_TRUE(cons.Ok()) << cons.unbalancedFlows << " unbalanced flows; total sent "
                               << cons.total.sent << " delivered " << cons.total.delivered
                               << " dropped " << cons.total.dropped << " discarded "
                               << cons.total.discarded << " in flight " << cons.total.inFlight;
        for (auto& nic : nics)
        {
            EXPECT_EQ(nic->AuditTransportState(*ft), "");
        }
        TearDown();
        SetUp();
    }
}

TEST_F(UbLossy, ClosWithSprayingOrderingAndEveryNicOption)
{
    // 8 hosts on a k = 4 Clos (2 spines): h0 -> h4 with the ordering mix of the test above on
    // three Jettys, 7 background requests between other hosts, 3 more into h4, under 5 % loss;
    // the same invariants for each NIC configuration.
    const std::vector<std::string> configs = {
        "ns3::UbNic::LoadBalancer=ns3::UbObliviousSpray",
        "ns3::UbNic::LoadBalancer=ns3::UbAdaptiveSpray;ns3::FabricSwitch::Caqm=true",
        "ns3::UbNic::AckInterval=4;ns3::UbNic::SackBits=8;ns3::UbNic::LoadBalancer=ns3::"
        "UbObliviousSpray",
        "ns3::UbNic::OutOfOrderWindow=8;ns3::UbNic::ReorderBufferSize=16384B;"
        "ns3::UbNic::LoadBalancer=ns3::UbObliviousSpray",
        "ns3::UbNic::Sharing=groups;ns3::UbNic::Groups=2;ns3::UbNic::ReorderWindow=0ns",
        "ns3::UbNic::Mtu=1024;ns3::UbNic::OutOfOrderWindow=2;ns3::FabricSwitch::Caqm=true",
        "ns3::UbNic::ContextCacheSize=60B;ns3::UbNic::ContextMissPenalty=200ns;"
        "ns3::UbNic::MaxInflightRequests=3",
    };
    const uint32_t runs = getenv("UB_RUNS") ? std::atoi(getenv("UB_RUNS")) : 2;
    for (const std::string& config : configs)
    {
        for (uint32_t run = 1; run <= runs; ++run)
        {
            SCOPED_TRACE(config + " run " + std::to_string(run));
            RngSeedManager::SetRun(run);
            Set("ns3::FabricNetDevice::LossRate", getenv("UB_LOSS") ? getenv("UB_LOSS") : "0.05");
            Set("ns3::UbNic::RtoMode", "fixed");
            Set("ns3::UbNic::Rto", "20us");
            std::stringstream ss(config);
            for (std::string kv; std::getline(ss, kv, ';');)
            {
                size_t eq = kv.find('=');
                Set(kv.substr(0, eq), kv.substr(eq + 1));
            }
            Clos2Params p;
            p.k = 4;
            FabricNetwork net = FabricNetwork::Build(MakeClos2(p), run, run);
            std::vector<Ptr<UbNic>> nics = InstallUb(net);
            std::vector<uint32_t> ids;
            uint32_t a = PostUb(net, nics, {0, 4, 512 * 1024});
            ids.push_back(a);
            ids.push_back(PostUb(net, nics, {0, 4, 32 * 1024, Time(0), 1, UbOrder::NONE}));
            ids.push_back(PostUb(net, nics, {0, 4, 32 * 1024, Time(0), 0, UbOrder::STRICT}));
            ids.push_back(PostUb(net, nics, {0, 4, 8 * 1024, Time(0), 2, UbOrder::AFTER, {a}}));
            for (uint32_t s = 1; s < 8; ++s)
            {
                ids.push_back(PostUb(
                    net,
                    nics,
                    {s, (s + 3) % 8, 256 * 1024, MicroSeconds(s), static_cast<uint16_t>(s % 3)}));
            }
            for (uint32_t s = 5; s < 8; ++s)
            {
                ids.push_back(PostUb(net, nics, {s, 4, 128 * 1024, MicroSeconds(2)}));
            }
            Simulator::Stop(MilliSeconds(50));
            Simulator::Run();
            Ptr<FlowTable> ft = net.GetFlowTable();
            for (uint32_t id : ids)
            {
                const FlowRecord& f = ft->Get(id);
                EXPECT_TRUE(f.finished) << "flow " << id << ": " << nics[f.src]->StuckReason(id);
                EXPECT_EQ(f.deliveredBytes, f.bytes) << "flow " << id;
            }
            EXPECT_GE(ft->Get(ids[2]).executed, ft->Get(a).executed);
            EXPECT_GE(ft->Get(ids[3]).executed, ft->Get(a).executed);
            EXPECT_TRUE(CheckConservation(net).Ok());
            for (auto& nic : nics)
            {
                EXPECT_EQ(nic->AuditTransportState(*ft), "");
            }
            TearDown();
            SetUp();
            if (HasFailure())
            {
                return;
            }
        }
    }
}

} // namespace
} // namespace test
} // namespace ns3
