// Retransmission timeout in a lossless fabric (docs/models.md#retransmission-timeout).
//
// 31:1 incast of 1 MiB messages into one 100 Gb/s port, line-rate senders (cc none), PFC with
// a static XOFF of 256 KiB per ingress port: the egress queue toward the receiver holds up to
// 31 · 256 KiB ≈ 7.75 MiB, 650 µs at 100 Gb/s, while the whole incast takes 31 MiB / 100 Gb/s
// ≈ 2.7 ms. Nothing is lost (PFC), so any retransmission is spurious:
//  - the fixed timeout (IRN's 100/320 µs) waits less than a packet spends in that queue and
//    resends by go-back-N bytes the receiver then discards as duplicates;
//  - the adaptive default (RFC 6298 floored by MinRto + RtoQueueBound = 2.78 ms, above the
//    650 µs queue) resends nothing.
// A lossy run (PFC off) where a message's last packet is lost still recovers it by the
// adaptive timeout, no earlier than the floor (no NAK can reveal a lost tail).

#include "../fabric-sim-util.h"
#include "../rto-incast-fixture.h"
#include "../test-files.h"
#include "config/scenario-config.h"
#include "record/conservation.h"
#include "roce/rdma-nic.h"
#include "run/scenario-runner.h"

#include <filesystem>
#include <fstream>

namespace ns3
{
namespace test
{
namespace
{

const char* const kIncast = R"(name: rto-incast
seed: 1
stop_time: 40ms
transport: roce
cc: none
topology: {generator: star, hosts: auto, rate: 100Gbps, cable: 3m}
link: {wire_overhead: 24B}
host: {mtu: 4096B}
switch:
  buffer: 12MiB
  ecn: {enabled: false}
  pfc: {enabled: true, lossless: [3], xoff: 256KiB, headroom: auto}
roce: {recovery: gbn}
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

class RoceRto : public RtoIncastFixture
{
  protected:
    RoceRto()
        : RtoIncastFixture(kIncast, "fabric-roce-rto")
    {
    }
};

TEST_F(RoceRto, FixedTimeoutResendsSpuriouslyUnderDeepLosslessQueues)
{
    RunOutcome o = Run({"roce.rto_mode=fixed"});
    ASSERT_EQ(o.exitCode, 0) << o.message;
    EXPECT_EQ(o.summary["flows_finished"].get<uint32_t>(), 31u);
    EXPECT_EQ(Counter(o, "dropped_bytes"), 0u);
    // The queue is deep enough for the old timer: the failure the adaptive default removes.
    EXPECT_GT(o.summary["bottleneck"]["bytes"].get<uint64_t>(), 320e-6 * 100e9 / 8);
    EXPECT_GT(Counter(o, "retransmitted_bytes"), 0u);
    // No drop: every resent byte is either a duplicate the receiver discarded (its original
    // had arrived first, on the same FIFO path) or still on its way when the last flow ends.
    EXPECT_GT(Counter(o, "spurious_retransmitted_bytes"), 0u);
    EXPECT_EQ(Counter(o, "spurious_retransmitted_bytes"), SpuriousInFlowsCsv());
    EXPECT_EQ(Counter(o, "spurious_retransmitted_bytes") + Counter(o, "in_flight_bytes"),
              Counter(o, "retransmitted_bytes"));
    EXPECT_TRUE(o.summary["conservation_ok"].get<bool>());
}

TEST_F(RoceRto, AdaptiveDefaultResendsNothingUnderDeepLosslessQueues)
{
    RunOutcome o = Run({});
    ASSERT_EQ(o.exitCode, 0) << o.message;
    EXPECT_EQ(o.summary["flows_finished"].get<uint32_t>(), 31u);
    EXPECT_EQ(Counter(o, "dropped_bytes"), 0u);
    EXPECT_GT(o.summary["bottleneck"]["bytes"].get<uint64_t>(), 320e-6 * 100e9 / 8);
    EXPECT_EQ(Counter(o, "retransmitted_bytes"), 0u);
    EXPECT_EQ(Counter(o, "spurious_retransmitted_bytes"), 0u);
    EXPECT_EQ(SpuriousInFlowsCsv(), 0u);
    // Without resends the port never idles: the last byte arrives after 31 MiB of frames at
    // 100 Gb/s (4096 B payload, 58 B headers + 24 B wire overhead per frame), within 2 %.
    double frames = 31.0 * 256;
    double line = frames * (4096 + 58 + 24) * 8 / 100e9;
    EXPECT_LT(o.summary["last_finish_ns"].get<double>() * 1e-9, line * 1.02);
    EXPECT_TRUE(o.summary["conservation_ok"].get<bool>());
}

TEST_F(RoceRto, AdaptiveTimeoutRecoversALostTailPacket)
{
    // One sender, PFC off, a 64 KiB buffer: the 1 MiB message at line rate into an idle port
    // is not dropped, so lose its last packet by script instead (the receiver's first copy).
    Set("ns3::RdmaNic::Mtu", "4096");
    Set("ns3::FabricSwitch::EcnEnabled", "false");
    FabricNetwork net =
        FabricNetwork::Build(MakeStar(2, DataRate("100Gbps"), NanoSeconds(15)), 0, 0);
    std::vector<Ptr<RdmaNic>> nics;
    for (uint32_t h = 0; h < 2; ++h)
    {
        nics.push_back(CreateObject<RdmaNic>());
        nics.back()->Install(net.GetHost(h));
    }
    FlowRecord rec;
    rec.src = 1;
    rec.dst = 0;
    rec.bytes = 256 * 4096;
    rec.priority = 3;
    rec.entropy = 50000;
    rec.verb = RdmaVerb::WRITE;
    uint32_t id = net.GetFlowTable()->Add(rec);
    nics[1]->StartFlowAt(id);
    nics[0]->LoseFirstTransmission(id, 255);
    Simulator::Run();
    const FlowRecord& f = net.GetFlowTable()->Get(id);
    EXPECT_TRUE(f.finished);
    EXPECT_EQ(f.deliveredBytes, rec.bytes);
    EXPECT_EQ(f.retransmittedBytes, 4096u); // the tail alone: nothing after it to NAK
    EXPECT_EQ(f.spuriousBytes, 0u);
    EXPECT_TRUE(CheckConservation(net).Ok());
    // The timer restarts on every ACK (RFC 6298 §5.3); the last ACK came back within a few
    // microseconds of the tail's transmission, and the RTO then was the floor: SRTT + 4 RTTVAR
    // of microsecond samples is below MinRto + RtoQueueBound = 100 us + 2.684 ms.
    Time floor = MicroSeconds(100) + PicoSeconds(2684354560);
    double sendAll = 256 * (4096 + 58 + 24) * 8 / 100e9;
    EXPECT_GT(f.finish.GetSeconds(), floor.GetSeconds());
    EXPECT_LT(f.finish.GetSeconds(), floor.GetSeconds() + sendAll + 20e-6);
}

} // namespace
} // namespace test
} // namespace ns3
