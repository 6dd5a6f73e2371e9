// The Unified Bus service mode UNO, unreliable no order (docs/models.md#ub-uno): a UNO write
// finishes when its last packet reaches the target, with no ACK term; a lost packet is never
// resent and leaves the flow unfinished, its bytes counted dropped; a UNO request passes a
// stalled reliable one of its Jetty; and the scenario keys refuse what UNO cannot carry.
// Expected times are derived from the frame sizes of model/wire/ub-header.h, the link rate and
// the cables of a one-switch star (store and forward).

#include "../test-files.h"
#include "config/config-error.h"
#include "config/scenario-config.h"
#include "distributed/partitioned-run.h"
#include "run/scenario-runner.h"
#include "ub-test-util.h"

#include <filesystem>
#include <fstream>

namespace ns3
{
namespace test
{
namespace
{

constexpr uint32_t kMtu = 4096;
const DataRate kRate("400Gbps");
constexpr int64_t kCablePs = 150000; // d: 150 ns per cable, two cables host-switch-host

class UbUno : public SimTest
{
  protected:
    void SetUp() override
    {
        SimTest::SetUp();
        Set("ns3::FabricNetDevice::WireOverhead", "0");
        Set("ns3::UbNic::Mtu", std::to_string(kMtu));
        Set("ns3::UbNic::CongestionControl", "ns3::UbFixedWindow"); // no window limit
        Set("ns3::UbNic::RtoMode", "fixed");                        // the timelines use Rto
        Set("ns3::FabricSwitch::EcnEnabled", "false");
    }

    /// Posts a write as the scenario runner does (a transport flow: `reliable` set, so that the
    /// flow table never ends it on delivered + dropped bytes); \p uno: service mode UNO.
    static uint32_t Post(FabricNetwork& net,
                         std::vector<Ptr<UbNic>>& nics,
                         uint64_t bytes,
                         bool uno,
                         UbOrder order = UbOrder::NONE)
    {
        FlowRecord rec;
        rec.src = 0;
        rec.dst = 1;
        rec.bytes = bytes;
        rec.priority = 3;
        rec.entropy = 49152 + 1;
        rec.verb = RdmaVerb::WRITE;
        rec.order = static_cast<uint8_t>(order);
        rec.reliable = true;
        rec.uno = uno;
        uint32_t id = net.GetFlowTable()->Add(rec);
        nics[0]->StartFlowAt(id);
        return id;
    }

    /// T_f: a full DATA frame (4096 + 66 B) at 400 Gb/s.
    static int64_t Frame()
    {
        return SerPs(kMtu + kUbFrameOverhead, kRate);
    }

    /// T_a: an ACK frame (62 B + 10 B extension + 256-bit SACK bitmap + ICRC).
    static int64_t Ack()
    {
        return SerPs(62 + 10 + 256 / 8 + 4, kRate);
    }
};

TEST_F(UbUno, LoneWriteFinishesWhenItsLastFrameArrives)
{
    // n = 4 full frames leave h0 back to back; the switch forwards each once it has it all, so
    // the last is off h0 at n T_f, off the switch T_f + d later, at h1 after another d:
    // finish = n T_f + T_f + 2 d, with no ACK term (UNO has none).
    const uint32_t n = 4;
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, PicoSeconds(kCablePs)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    uint32_t id = Post(net, nics, n * kMtu, true);
    Simulator::Run();
    const FlowRecord& f = net.GetFlowTable()->Get(id);
    const int64_t T = Frame();
    ASSERT_EQ(T, 83240); // (4096 + 66) B * 8 / 400 Gb/s
    ASSERT_TRUE(f.finished) << nics[0]->StuckReason(id);
    EXPECT_EQ(f.finish.GetPicoSeconds(), n * T + T + 2 * kCablePs); // 716200 ps
    EXPECT_EQ(f.executed, f.finish); // the target is where it finishes
    EXPECT_EQ(f.deliveredBytes, n * kMtu);
    EXPECT_EQ(f.sentBytes, n * kMtu);
    EXPECT_EQ(f.retransmittedBytes, 0u);
    // Nothing came back: h1 sent no frame at all (no ACK), and nothing was left to do after
    // the arrival (no timer: the event list ran dry right then).
    EXPECT_EQ(net.GetHost(1)->GetPort(0)->GetTxFrames(), 0u);
    EXPECT_EQ(Simulator::Now(), f.finish);
    EXPECT_EQ(nics[0]->GetSenderChannels(), 1u);
    EXPECT_EQ(nics[1]->GetReceiverChannels(), 0u); // no PSN tracking at the target
    EXPECT_TRUE(CheckConservation(net).Ok());
    EXPECT_EQ(nics[0]->AuditTransportState(*net.GetFlowTable()), "");
    EXPECT_EQ(nics[1]->AuditTransportState(*net.GetFlowTable()), "");
}

TEST_F(UbUno, ReliableWriteAddsTheAckReturn)
{
    // The same write, reliable: it completes at h0 when the ACK of the last packet (which
    // carries the execution notice) is back: n T_f + T_f + 2 d + 2 (T_a + d).
    const uint32_t n = 4;
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, PicoSeconds(kCablePs)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    uint32_t id = Post(net, nics, n * kMtu, false);
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    const FlowRecord& f = net.GetFlowTable()->Get(id);
    const int64_t T = Frame();
    ASSERT_EQ(Ack(), 2160); // 108 B at 400 Gb/s
    ASSERT_TRUE(f.finished);
    EXPECT_EQ(f.finish.GetPicoSeconds(),
              n * T + T + 2 * kCablePs + 2 * (Ack() + kCablePs)); // 1020520 ps
    EXPECT_EQ(f.executed.GetPicoSeconds(), n * T + T + 2 * kCablePs);
    EXPECT_EQ(net.GetHost(1)->GetPort(0)->GetTxFrames(), n); // one ACK per packet
}

TEST_F(UbUno, LostFrameIsNeverResentAndTheFlowStaysUnfinished)
{
    // Packet 1 of 4 is lost on arrival at h1 (a scripted loss, counted as a fabric drop).
    // Nothing tells h0: it sends each packet once, the target writes the other three, and the
    // flow never finishes; its missing bytes are the dropped ones.
    const uint32_t n = 4;
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, PicoSeconds(kCablePs)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    uint32_t id = Post(net, nics, n * kMtu, true);
    nics[1]->LoseFirstTransmission(id, 1);
    Simulator::Run(); // returns when nothing is pending: no timeout, no probe

    const FlowRecord& f = net.GetFlowTable()->Get(id);
    const int64_t T = Frame();
    EXPECT_FALSE(f.finished);
    EXPECT_EQ(f.sentBytes, n * kMtu); // each packet once
    EXPECT_EQ(f.retransmittedBytes, 0u);
    EXPECT_EQ(nics[0]->GetResentPackets(), 0u);
    EXPECT_EQ(f.deliveredBytes, (n - 1) * kMtu);
    EXPECT_EQ(f.droppedBytes, kMtu);
    EXPECT_EQ(f.discardedBytes, 0u);
    EXPECT_EQ(f.lastRx.GetPicoSeconds(), n * T + T + 2 * kCablePs); // packet 3 still came
    EXPECT_EQ(Simulator::Now(), f.lastRx); // the run went quiet at the last arrival
    std::string why = nics[0]->StuckReason(id);
    EXPECT_NE(why.find("unreliable (UNO)"), std::string::npos) << why;
    EXPECT_NE(why.find("4096 B lost"), std::string::npos) << why;
    ConservationReport cons = CheckConservation(net);
    EXPECT_TRUE(cons.Ok());
    EXPECT_EQ(cons.flows[id].inFlight, 0u);
    EXPECT_EQ(nics[0]->AuditTransportState(*net.GetFlowTable()), "");
    EXPECT_EQ(nics[1]->AuditTransportState(*net.GetFlowTable()), "");
}

TEST_F(UbUno, RequestSlotFreesWhenTheLastPacketLeaves)
{
    // One request slot (MaxInflightRequests 1), two UNO writes of 2 frames. A's last packet is
    // handed to the port at T_f (when A0 is off): the initiator knows no more, so B launches
    // then (the 6.2 ns request interval has long passed), sends at 2 T_f and 3 T_f, and
    // finishes at 4 T_f + T_f + 2 d. (Freed on A's arrival instead, B would launch at
    // 3 T_f + 2 d.)
    Set("ns3::UbNic::MaxInflightRequests", "1");
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, PicoSeconds(kCablePs)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    uint32_t a = Post(net, nics, 2 * kMtu, true);
    uint32_t b = Post(net, nics, 2 * kMtu, true);
    Simulator::Run();
    Ptr<FlowTable> ft = net.GetFlowTable();
    const int64_t T = Frame();
    ASSERT_TRUE(ft->Get(a).finished);
    ASSERT_TRUE(ft->Get(b).finished);
    EXPECT_EQ(ft->Get(a).finish.GetPicoSeconds(), 3 * T + 2 * kCablePs);
    EXPECT_EQ(ft->Get(b).launch.GetPicoSeconds(), T);
    EXPECT_EQ(ft->Get(b).finish.GetPicoSeconds(), 5 * T + 2 * kCablePs);
}

TEST_F(UbUno, StrictRequestsDoNotWaitForAnEarlierUnoOne)
{
    // UNO request A (2 packets, packet 0 lost: it never arrives whole), then strict (SO)
    // reliable request B of the same Jetty to the same target. Strict orders B after every
    // earlier request of its Jetty except UNO ones, so B executes when its one packet is in
    // (A1, B0 alternate on the port after A0: B0 is off h0 at 3 T_f, at h1 at 4 T_f + 2 d) and
    // completes one ACK later; A stays unfinished.
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, PicoSeconds(kCablePs)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    uint32_t a = Post(net, nics, 2 * kMtu, true);
    uint32_t b = Post(net, nics, kMtu, false, UbOrder::STRICT);
    nics[1]->LoseFirstTransmission(a, 0);
    Simulator::Stop(MilliSeconds(1)); // a B held behind A would probe every Rto, forever
    Simulator::Run();
    Ptr<FlowTable> ft = net.GetFlowTable();
    const int64_t T = Frame();
    EXPECT_FALSE(ft->Get(a).finished);
    ASSERT_TRUE(ft->Get(b).finished) << nics[0]->StuckReason(b);
    EXPECT_EQ(ft->Get(b).executed.GetPicoSeconds(), 4 * T + 2 * kCablePs);
    EXPECT_EQ(ft->Get(b).finish.GetPicoSeconds(), 4 * T + 2 * kCablePs + 2 * (Ack() + kCablePs));
    EXPECT_TRUE(CheckConservation(net).Ok());
}

TEST_F(UbUno, PassesAStalledReliableRequestOfItsJetty)
{
    // Reliable strict request A (4 packets, packet 0 lost; ReorderWindow 0: only the 100 us
    // Rto resends it) and then UNO request B (2 packets), both from Jetty 0 of h0 to h1. B has
    // its own channel, launched one RequestInterval (6.2 ns) after A: while A0 is on the wire
    // A's channel is alone in the port's rotation, which therefore resumes at A; B's channel,
    // added behind it, takes every other turn from then on: A0, A1, B0, A2, B1. B1 is off h0
    // at 5 T_f and at h1 at 6 T_f + 2 d, and B finishes then, while A waits for its resend.
    Set("ns3::UbNic::ReorderWindow", "0s");
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, PicoSeconds(kCablePs)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    uint32_t a = Post(net, nics, 4 * kMtu, false, UbOrder::STRICT);
    uint32_t b = Post(net, nics, 2 * kMtu, true);
    nics[1]->LoseFirstTransmission(a, 0);
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    Ptr<FlowTable> ft = net.GetFlowTable();
    const int64_t T = Frame();
    ASSERT_TRUE(ft->Get(b).finished);
    EXPECT_EQ(ft->Get(b).finish.GetPicoSeconds(), 6 * T + 2 * kCablePs);
    ASSERT_TRUE(ft->Get(a).finished);
    EXPECT_GT(ft->Get(a).finish, MicroSeconds(100)); // held by its own loss until the Rto
    EXPECT_EQ(nics[0]->GetSenderChannels(), 2u);
    EXPECT_TRUE(CheckConservation(net).Ok());
}

// --- Scenario keys ----------------------------------------------------------------------------

namespace fs = std::filesystem;

class UbUnoScenario : public SimTest
{
  protected:
    ScenarioConfig LoadText(const std::string& yaml)
    {
        std::string path = (m_dir / "s.yaml").string();
        std::ofstream(path) << yaml;
        return LoadScenario(path, {}, FABRIC_SOURCE_DIR);
    }

    /// Expects \p yaml to be refused with a ConfigError at \p key, on a line of the file.
    void ExpectKeyError(const std::string& yaml, const std::string& key)
    {
        SCOPED_TRACE(key);
        try
        {
            LoadText(yaml);
            ADD_FAILURE() << "accepted:\n" << yaml;
        }
        catch (const ConfigError& e)
        {
            EXPECT_EQ(e.Key(), key) << e.what();
            EXPECT_GT(e.Line(), 0) << e.what();
        }
    }

    TempDir m_tmp{"fabric-ub-uno"};
    const fs::path m_dir{m_tmp.Path()};
};

const char* const kHead = R"(name: uno
stop_time: 1ms
topology: {generator: star, hosts: 3}
)";

std::string
Flows(const std::string& transport, const std::string& flows, const std::string& extra = "")
{
    return std::string(kHead) + "transport: " + transport + "\nworkload:\n  type: flows\n" + extra +
           "  flows:\n" + flows;
}

TEST_F(UbUnoScenario, ServiceIsReadPerFlowAndAsTheWorkloadDefault)
{
    ScenarioConfig cfg = LoadText(Flows("ub",
                                        "    - {src: h1, dst: h0, bytes: 8KiB, service: uno}\n"
                                        "    - {src: h2, dst: h0, bytes: 8KiB}\n"));
    ASSERT_EQ(cfg.flows.size(), 2u);
    EXPECT_TRUE(cfg.flows[0].uno);
    EXPECT_FALSE(cfg.flows[1].uno);
    cfg = LoadText(Flows("ub",
                         "    - {src: h1, dst: h0, bytes: 8KiB}\n"
                         "    - {src: h2, dst: h0, bytes: 8KiB, service: reliable}\n",
                         "  service: uno\n"));
    EXPECT_TRUE(cfg.flows[0].uno);
    EXPECT_FALSE(cfg.flows[1].uno);
}

TEST_F(UbUnoScenario, RefusesWhatUnoCannotCarry)
{
    ExpectKeyError(Flows("roce", "    - {src: h1, dst: h0, bytes: 8KiB, service: uno}\n"),
                   "workload.flows[0].service");
    ExpectKeyError(Flows("raw", "    - {src: h1, dst: h0, bytes: 8KiB, service: uno}\n"),
                   "workload.flows[0].service");
    ExpectKeyError(Flows("ub", "    - {src: h1, dst: h0, bytes: 8KiB, service: sometimes}\n"),
                   "workload.flows[0].service");
    for (const char* verb : {"read", "load", "store", "atomic"})
    {
        ExpectKeyError(Flows("ub",
                             std::string("    - {src: h1, dst: h0, bytes: 8KiB, verb: ") + verb +
                                 ", service: uno}\n"),
                       "workload.flows[0].service");
    }
    ExpectKeyError(
        Flows("ub", "    - {src: h1, dst: h0, bytes: 8KiB, order: strict, service: uno}\n"),
        "workload.flows[0].service");
    // As the workload default: the flow's conflicting field is named.
    ExpectKeyError(
        Flows("ub", "    - {src: h1, dst: h0, bytes: 8KiB, order: SO}\n", "  service: uno\n"),
        "workload.flows[0].order");
    ExpectKeyError(
        Flows("ub", "    - {src: h1, dst: h0, bytes: 8KiB}\n", "  service: uno\n  verb: read\n"),
        "workload.service");
    ExpectKeyError(Flows("roce", "    - {src: h1, dst: h0, bytes: 8KiB}\n", "  service: uno\n"),
                   "workload.service");
    ExpectKeyError(std::string(kHead) +
                       "transport: ub\nworkload: {type: collective, service: uno}\n"
                       "collective: {algorithm: ring, message: 64KiB}\n",
                   "workload.service");
    // Nothing is ordered after a UNO request (it may never arrive whole).
    ExpectKeyError(Flows("ub",
                         "    - {src: h1, dst: h0, bytes: 8KiB, service: uno}\n"
                         "    - {src: h1, dst: h0, bytes: 8KiB, after: [0]}\n"),
                   "workload.flows[1].after");
}

TEST_F(UbUnoScenario, DistributedRunRefusesUno)
{
    // A UNO flow finishes at its target; the sender's rank would not see it.
    ScenarioConfig cfg = LoadText(Flows("ub",
                                        "    - {src: h1, dst: h0, bytes: 8KiB}\n"
                                        "    - {src: h2, dst: h0, bytes: 8KiB, service: uno}\n"));
    PartitionPlan plan;
    plan.size = 2;
    try
    {
        ScenarioRunner::Run(cfg, m_dir.string(), &plan);
        ADD_FAILURE() << "a distributed run accepted service: uno";
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.Key(), "workload.flows[1].service") << e.what();
        EXPECT_EQ(e.Line(), 9) << e.what(); // the second flow's line
    }
    // UNO by the workload's default: that key is named.
    cfg = LoadText(Flows("ub", "    - {src: h1, dst: h0, bytes: 8KiB}\n", "  service: uno\n"));
    try
    {
        ScenarioRunner::Run(cfg, m_dir.string(), &plan);
        ADD_FAILURE() << "a distributed run accepted workload.service: uno";
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.Key(), "workload.service") << e.what();
        EXPECT_EQ(e.Line(), 7) << e.what(); // workload.service
    }
}

TEST_F(UbUnoScenario, RunReportsTheLossAndKeepsConservation)
{
    // Through fabric-run's runner: packet 0 of the UNO flow lost (workload.lose); flows.csv
    // shows it unfinished with the reason, the summary balances, the exit status is 0.
    ScenarioConfig cfg = LoadText(Flows("ub",
                                        "    - {src: h1, dst: h0, bytes: 16KiB, service: uno}\n"
                                        "    - {src: h2, dst: h0, bytes: 16KiB}\n",
                                        "  lose: [{flow: 0, packet: 0}]\n"));
    RunOutcome out = ScenarioRunner::Run(cfg, m_dir.string(), nullptr);
    EXPECT_EQ(out.exitCode, 0) << out.message;
    std::ifstream csv(m_dir / "flows.csv");
    std::string header, row0, row1;
    std::getline(csv, header);
    std::getline(csv, row0);
    std::getline(csv, row1);
    EXPECT_NE(row0.find("unreliable (UNO) flow: 4096 B lost"), std::string::npos) << row0;
    EXPECT_EQ(row1.find("UNO"), std::string::npos) << row1;
    EXPECT_EQ(out.summary["flows_finished"], 1);
    EXPECT_EQ(out.summary["flows_total"], 2);
    EXPECT_TRUE(out.summary["conservation_ok"].get<bool>());
    EXPECT_TRUE(out.summary["transport_state_ok"].get<bool>());
    // Once the lost flow has nothing left in the fabric, samplers and checks sleep: a stop
    // time ten times later runs no extra event.
    uint64_t events = out.summary["events"];
    cfg.stopTime = cfg.stopTime * 10;
    Simulator::Destroy();
    RunOutcome longer = ScenarioRunner::Run(cfg, m_dir.string(), nullptr);
    EXPECT_EQ(longer.summary["events"].get<uint64_t>(), events);
}

TEST_F(UbUnoScenario, TsharkSeesTheUnreliableFlag)
{
    // h0's pcap, read by tshark (UDP to 4792, the UB header as data): byte 1 of the UB header
    // holds the flags; 0x08 is set on the UNO flow's DATA frames (message = flow 0) and clear
    // on the reliable one's (flow 1).
    ASSERT_TRUE(TsharkInstalled());
    ScenarioConfig cfg = LoadText(Flows("ub",
                                        "    - {src: h1, dst: h0, bytes: 8KiB, service: uno}\n"
                                        "    - {src: h2, dst: h0, bytes: 8KiB}\n") +
                                  "trace: {pcap: true, pcap_nodes: [h0]}\n");
    RunOutcome out = ScenarioRunner::Run(cfg, m_dir.string(), nullptr);
    ASSERT_EQ(out.exitCode, 0) << out.message;
    std::string cmd = std::string(kTshark) + " -n -r '" + (m_dir / "h0-0.pcap").string() +
                      "' -T fields -e udp.dstport -e data.data 2>/dev/null";
    FILE* pipe = popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string text;
    char chunk[4096];
    for (size_t n; (n = fread(chunk, 1, sizeof chunk, pipe)) > 0;)
    {
        text.append(chunk, n);
    }
    EXPECT_EQ(pclose(pipe), 0);
    std::map<uint32_t, std::vector<uint32_t>> flagsOfFlow; // DATA frames only
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
    {
        std::istringstream cells(line);
        std::string port, data;
        cells >> port >> data;
        if (port != "4792" || data.size() < 16 || data.substr(0, 2) != "01")
        {
            continue;
        }
        uint32_t flags = std::stoul(data.substr(2, 2), nullptr, 16);
        uint32_t message = std::stoul(data.substr(8, 8), nullptr, 16);
        flagsOfFlow[message].push_back(flags);
    }
    ASSERT_EQ(flagsOfFlow[0].size(), 2u) << text;
    ASSERT_EQ(flagsOfFlow[1].size(), 2u) << text;
    for (uint32_t flags : flagsOfFlow[0])
    {
        EXPECT_EQ(flags & UbFrameHeader::kFlagUnreliable, 0x08u);
    }
    for (uint32_t flags : flagsOfFlow[1])
    {
        EXPECT_EQ(flags & UbFrameHeader::kFlagUnreliable, 0u);
    }
}

} // namespace
} // namespace test
} // namespace ns3
