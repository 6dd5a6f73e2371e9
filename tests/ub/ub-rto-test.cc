// Unified Bus retransmission timeout in a credit-flow-controlled fabric
// (docs/models.md#retransmission-timeout).
//
// 31:1 incast of 1 MiB requests on a 2-tier Clos at 400 Gb/s (4 leaves of 8 hosts, 8 spines),
// every link under credit-based flow control (64 KiB per lane): nothing can be dropped, and
// credits hold packets back hop by hop toward the senders, so a packet's round trip grows far
// beyond the unloaded microseconds while 31 MiB drain through one 400 Gb/s port (≈ 670 µs).
//  - the fixed timeout (ub.rto = ns-3-UB's 100 µs) declares queued packets lost and resends
//    bytes the receiver already has;
//  - the adaptive default (RFC 6298, floor MinRto + RtoQueueBound = 2.78 ms) resends none.
// A lossy case: a request's last packet is lost; the adaptive timeout still resends it.

#include "../fabric-sim-util.h"
#include "../rto-incast-fixture.h"
#include "../test-files.h"
#include "config/scenario-config.h"
#include "record/conservation.h"
#include "run/scenario-runner.h"
#include "ub-test-util.h"
#include "ub/ub-nic.h"

#include <filesystem>
#include <fstream>

namespace ns3
{
namespace test
{
namespace
{

const char* const kIncast = R"(name: ub-rto-incast
seed: 1
stop_time: 40ms
transport: ub
cc: none
topology: {generator: clos2, k: 16, leaves: 4, down: 8, up: 8, spines: 8, rate: 400Gbps,
           host_cable: 3m, fabric_cable: 30m}
link: {wire_overhead: 24B}
host: {mtu: 4096B}
switch:
  buffer: 16MiB
  flow_control: cbfc
  cbfc: {cell: 256B, credits: 64KiB, mode: exclusive, return_interval: 0ns, sync_interval: 10us}
  pfc: {lossless: [3]}
workload:
  type: incast
  senders: 31
  receiver: 0
  bytes_per_sender: 1MiB
  rate: line
  start: 1us
  start_jitter: 0us
  priority: 3
)";

class UbRto : public RtoIncastFixture
{
  protected:
    UbRto()
        : RtoIncastFixture(kIncast, "fabric-ub-rto")
    {
    }
};

TEST_F(UbRto, FixedTimeoutResendsSpuriouslyUnderCreditBackpressure)
{
    RunOutcome o = Run({"ub.rto_mode=fixed"});
    ASSERT_EQ(o.exitCode, 0) << o.message;
    EXPECT_EQ(o.summary["flows_finished"].get<uint32_t>(), 31u);
    EXPECT_EQ(Counter(o, "dropped_bytes"), 0u);
    EXPECT_GT(Counter(o, "retransmitted_bytes"), 0u);
    // No drop: each resent byte arrived as a duplicate or is still under way at the end.
    EXPECT_GT(Counter(o, "spurious_retransmitted_bytes"), 0u);
    EXPECT_EQ(Counter(o, "spurious_retransmitted_bytes"), SpuriousInFlowsCsv());
    EXPECT_EQ(Counter(o, "spurious_retransmitted_bytes") + Counter(o, "in_flight_bytes"),
              Counter(o, "retransmitted_bytes"));
}

TEST_F(UbRto, AdaptiveDefaultResendsNothingUnderCreditBackpressure)
{
    RunOutcome o = Run({});
    ASSERT_EQ(o.exitCode, 0) << o.message;
    EXPECT_EQ(o.summary["flows_finished"].get<uint32_t>(), 31u);
    EXPECT_EQ(Counter(o, "dropped_bytes"), 0u);
    EXPECT_EQ(Counter(o, "retransmitted_bytes"), 0u);
    EXPECT_EQ(Counter(o, "spurious_retransmitted_bytes"), 0u);
    EXPECT_EQ(SpuriousInFlowsCsv(), 0u);
    EXPECT_TRUE(o.summary["conservation_ok"].get<bool>());
}

TEST_F(UbRto, AdaptiveTimeoutRecoversALostTailPacket)
{
    // h1 writes 16 packets to h0, the last one's first copy lost: no later packet reveals the
    // gap (ReorderWindow needs one), so only the timeout resends it, at the floor
    // MinRto + RtoQueueBound after its first transmission (SRTT + 4 RTTVAR of microsecond
    // samples is below it).
    const DataRate rate("400Gbps");
    Set("ns3::FabricSwitch::EcnEnabled", "false");
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, rate, NanoSeconds(150)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    uint32_t id = PostUb(net, nics, {1, 0, 16 * 4096});
    nics[0]->LoseFirstTransmission(id, 15);
    Simulator::Stop(MilliSeconds(20));
    Simulator::Run();
    const FlowRecord& f = net.GetFlowTable()->Get(id);
    EXPECT_TRUE(f.finished) << nics[1]->StuckReason(id);
    EXPECT_EQ(f.deliveredBytes, f.bytes);
    EXPECT_EQ(f.retransmittedBytes, 4096u);
    EXPECT_EQ(f.spuriousBytes, 0u);
    EXPECT_TRUE(CheckConservation(net).Ok());
    Time floor = MicroSeconds(100) + PicoSeconds(2684354560);
    EXPECT_GT(f.finish, floor);
    EXPECT_LT(f.finish, floor + MicroSeconds(10));
}

} // namespace
} // namespace test
} // namespace ns3
