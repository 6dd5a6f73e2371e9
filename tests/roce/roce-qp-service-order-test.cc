// The order in which a NIC serves queue pairs that start together (RdmaNic::ServeNewQpFirst).
// With it, round-robin resumes after the QP that sent last over the QPs there are now, so a QP
// that starts while another's first frame is on the wire sends before that QP's second frame.
// The HPCC-family simulators' NIC does this (alibaba-edu/High-Precision-Congestion-Control
// simulation/src/point-to-point/ model/qbb-net-device.cc, RdmaEgressQueue::GetNextQindex: (m_rrlast
// + 1) modulo the current number of QPs), and burst experiments depend on it: each host of the
// PowerTCP burst starts a long flow and a burst flow at the same instant
// (results/twins/ns3-datacenter/README.md).

#include "../fabric-sim-util.h"
#include "roce/rdma-nic.h"

namespace ns3
{
namespace test
{
namespace
{

class RoceQpServiceOrder : public SimTest
{
  protected:
    /// A then B (3 packets of 4096 B each), h1 -> h0, posted at 0; returns B's last arrival
    /// minus A's.
    Time LastArrivalGap(bool serveNewFirst)
    {
        Set("ns3::RdmaNic::Mtu", "4096");
        Set("ns3::RdmaNic::ServeNewQpFirst", serveNewFirst ? "true" : "false");
        FabricNetwork net =
            FabricNetwork::Build(MakeStar(2, DataRate("400Gbps"), NanoSeconds(150)), 0, 0);
        std::vector<Ptr<HostTransport>> nics = InstallNics(net, "ns3::RdmaNic");
        uint32_t ids[2];
        for (int i = 0; i < 2; ++i)
        {
            FlowRecord r;
            r.src = 1;
            r.dst = 0;
            r.bytes = 3 * 4096;
            r.priority = 3;
            r.verb = RdmaVerb::WRITE;
            r.entropy = static_cast<uint16_t>(49152 + i);
            ids[i] = net.GetFlowTable()->Add(r);
            nics[1]->StartFlowAt(ids[i]);
        }
        Simulator::Stop(MilliSeconds(1));
        Simulator::Run();
        const FlowRecord& a = net.GetFlowTable()->Get(ids[0]);
        const FlowRecord& b = net.GetFlowTable()->Get(ids[1]);
        EXPECT_TRUE(a.finished && b.finished);
        EXPECT_LT(a.launch, b.launch);
        Time gap = b.lastRx - a.lastRx;
        Simulator::Destroy();
        return gap;
    }
};

TEST_F(RoceQpServiceOrder, AQpStartedDuringTheFirstFrameSendsBeforeTheSecond)
{
    // A then B (3 packets of 4096 B each), h1 -> h0, posted at 0: A launches first and B one
    // request interval (18.6 ns) later, while A's first frame is on the wire. Frames leave
    // A1 B1 A2 B2 A3 B3, back to back at line rate (no congestion control), so B's last frame
    // arrives exactly one frame time after A's: a last frame is 4096 B of payload + 58 B of
    // headers (Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4) + 24 B of wire overhead = 4178 B,
    // 83.56 ns at 400 Gb/s. Serving A's second frame first (A1 A2 B1 A3 B2 B3) makes it two.
    EXPECT_EQ(LastArrivalGap(true), PicoSeconds(83560));
}

TEST_F(RoceQpServiceOrder, ByDefaultANewQpWaitsAWholeTurn)
{
    // A1 A2 B1 A3 B2 B3: B's last frame arrives two frame times after A's.
    EXPECT_EQ(LastArrivalGap(false), PicoSeconds(2 * 83560));
}

} // namespace
} // namespace test
} // namespace ns3
