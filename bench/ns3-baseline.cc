/*
 * ns3-baseline: the same topology size and load as a bench/ scenario, simulated with stock
 * ns-3 only (PointToPoint links, InternetStackHelper, UDP client/server, global routing), so
 * that the fabric's speed can be reported as a ratio to stock ns-3 measured on the same machine
 * in the same benchmark run (absolute times are noisy; ratios are not, much).
 *
 *   ns3-baseline --topology=star --hosts=128 --workload=incast --senders=32 --bytes=2097152
 *   ns3-baseline --topology=clos2 --leaves=16 --spines=8 --down=8 --workload=permutation
 *
 * Topologies: `star` (N hosts around one node acting as an IPv4 router) and `clos2` (two-tier
 * leaf-spine: `leaves` leaves with `down` hosts each, every leaf linked to each of `spines`
 * spines by `parallel` links; hosts numbered leaf by leaf as in the fabric's clos2 generator).
 * Every link is a PointToPoint link of `rate` and `delay` in its own /30.
 *
 * Workloads (as the fabric's scenario keys): incast (`senders` hosts, the lowest-numbered
 * ones other than `receiver`, send `bytes` each to `receiver`), permutation (a random
 * derangement drawn exactly as the fabric draws it: std::shuffle with std::mt19937_64(seed),
 * so with the same compiler the flows are the same), all-to-all. Each flow is a UdpClient
 * sending ceil(bytes / payload) datagrams of `payload` bytes at line rate (one datagram per
 * frame time of the access link), received by a UdpServer.
 *
 * The run is lossless like the fabric's lossless priority (which PFC keeps lossless): device
 * queues are DropTail with `queue` packets (default: large enough for every packet of the
 * run) and, unless --qdisc, ns-3's default FqCoDel queue disc that Ipv4AddressHelper installs
 * is removed again (with --qdisc it stays, its limit raised to the same size). Multipath: ns-3's
 * only ECMP is Ipv4GlobalRouting::RandomEcmpRouting (per packet, random), on by default for
 * clos2 (the fabric hashes per flow); --routing=nix uses nix-vector routing instead (one cached
 * path per destination, so no multipath, but no linear route-table scan per packet). The run ends
 * when every datagram has arrived (like the fabric, which stops when every flow has finished) or at
 * --stopTime.
 *
 * Prints one JSON line: events (Simulator::GetEventCount()), packet_hops (PhyTxEnd on every
 * device: frames transmitted on a link), sim_time_ns, wall_s (Simulator::Run() only), build_s
 * (topology, stack, addresses, global routing, applications), peak_rss_kb (ru_maxrss), and
 * the sizes. Exit status 0 when every datagram was delivered, 1 when some were lost, 2 on bad
 * arguments.
 */

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/nix-vector-routing-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

uint64_t g_hops = 0;
uint64_t g_rxPackets = 0;
uint64_t g_expectedPackets = 0;

void
CountHop(Ptr<const Packet>)
{
    ++g_hops;
}

void
CountRx(Ptr<const Packet>)
{
    if (++g_rxPackets == g_expectedPackets)
    {
        Simulator::Stop(); // every datagram delivered: end here, as the fabric does
    }
}

[[noreturn]] void
Fail(const std::string& message)
{
    std::cerr << "ns3-baseline: " << message << std::endl;
    std::exit(2);
}

std::string
JsonString(const std::string& s)
{
    std::string out = "\"";
    for (char c : s)
    {
        if (c == '"' || c == '\\')
        {
            out += '\\';
        }
        out += c;
    }
    return out + "\"";
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string topology = "star";
    uint32_t hosts = 0;
    uint32_t leaves = 16;
    uint32_t spines = 8;
    uint32_t down = 8;
    uint32_t parallel = 1;
    std::string workload = "incast";
    uint32_t senders = 8;
    uint32_t receiver = 0;
    uint64_t bytes = 2 * 1024 * 1024;
    uint32_t payload = 4096;
    std::string rate = "400Gbps";
    std::string delay = "150ns";
    uint64_t seed = 1;
    double stopTimeS = 1.0;
    uint32_t queue = 0;
    bool qdisc = false;
    bool ecmp = true;
    std::string routing = "global";

    CommandLine cmd(__FILE__);
    cmd.AddValue("topology", "star | clos2", topology);
    cmd.AddValue("hosts", "hosts (star: required; clos2: default leaves x down)", hosts);
    cmd.AddValue("leaves", "clos2: leaf switches", leaves);
    cmd.AddValue("spines", "clos2: spine switches (one link from every leaf to each)", spines);
    cmd.AddValue("down", "clos2: host ports per leaf", down);
    cmd.AddValue("parallel", "clos2: links between every leaf and every spine", parallel);
    cmd.AddValue("workload", "incast | permutation | all-to-all", workload);
    cmd.AddValue("senders", "incast: number of senders", senders);
    cmd.AddValue("receiver", "incast: receiving host", receiver);
    cmd.AddValue("bytes", "bytes per flow (per sender for incast)", bytes);
    cmd.AddValue("payload", "UDP payload bytes per datagram", payload);
    cmd.AddValue("rate", "link rate (every link)", rate);
    cmd.AddValue("delay", "propagation delay (every link)", delay);
    cmd.AddValue("seed", "random seed (permutation; ns-3 RngRun)", seed);
    cmd.AddValue("stopTime", "simulated time limit in seconds", stopTimeS);
    cmd.AddValue("queue", "device queue packets (0: every packet of the run fits)", queue);
    cmd.AddValue("qdisc", "keep ns-3's default queue disc (FqCoDel) on every device", qdisc);
    cmd.AddValue("ecmp", "Ipv4GlobalRouting::RandomEcmpRouting (per-packet ECMP)", ecmp);
    cmd.AddValue("routing",
                 "global (Ipv4GlobalRouting) | nix (Ipv4NixVectorRouting: one cached path per "
                 "destination, no ECMP)",
                 routing);
    cmd.Parse(argc, argv);

    // Same time resolution as the fabric (picoseconds): 400 Gb/s frame times are not whole ns.
    Time::SetResolution(Time::PS);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    auto wallStart = std::chrono::steady_clock::now();

    // Topology.
    uint32_t nSwitches = 0;
    if (topology == "star")
    {
        if (hosts < 2)
        {
            Fail("--topology=star needs --hosts >= 2");
        }
        nSwitches = 1;
    }
    else if (topology == "clos2")
    {
        if (leaves == 0 || spines == 0 || down == 0 || parallel == 0)
        {
            Fail("--topology=clos2 needs positive --leaves, --spines, --down and --parallel");
        }
        if (hosts == 0)
        {
            hosts = leaves * down;
        }
        if (hosts > leaves * down)
        {
            Fail("--hosts exceeds leaves x down");
        }
        nSwitches = leaves + spines;
    }
    else
    {
        Fail("unknown --topology '" + topology + "' (star | clos2)");
    }

    // Flows (src, dst), in the fabric's order.
    std::vector<std::pair<uint32_t, uint32_t>> flows;
    if (workload == "incast")
    {
        if (receiver >= hosts || senders == 0 || senders >= hosts)
        {
            Fail("incast needs 1..hosts-1 senders and a receiver < hosts");
        }
        for (uint32_t h = 0, n = 0; h < hosts && n < senders; ++h)
        {
            if (h != receiver)
            {
                flows.emplace_back(h, receiver);
                ++n;
            }
        }
    }
    else if (workload == "permutation")
    {
        std::mt19937_64 rng(seed);
        std::vector<uint32_t> perm(hosts);
        bool fixedPoint = true;
        while (fixedPoint)
        {
            for (uint32_t i = 0; i < hosts; ++i)
            {
                perm[i] = i;
            }
            std::shuffle(perm.begin(), perm.end(), rng);
            fixedPoint = false;
            for (uint32_t i = 0; i < hosts; ++i)
            {
                fixedPoint = fixedPoint || perm[i] == i;
            }
        }
        for (uint32_t i = 0; i < hosts; ++i)
        {
            flows.emplace_back(i, perm[i]);
        }
    }
    else if (workload == "all-to-all")
    {
        for (uint32_t s = 0; s < hosts; ++s)
        {
            for (uint32_t d = 0; d < hosts; ++d)
            {
                if (s != d)
                {
                    flows.emplace_back(s, d);
                }
            }
        }
    }
    else
    {
        Fail("unknown --workload '" + workload + "' (incast | permutation | all-to-all)");
    }
    if (payload < 12 || payload > 65000)
    {
        Fail("--payload must be 12..65000 (UdpClient writes a 12-byte sequence header)");
    }
    const uint64_t packetsPerFlow = (bytes + payload - 1) / payload;
    g_expectedPackets = packetsPerFlow * flows.size();

    const uint32_t frameBytes = payload + 8 + 20 + 2; // UDP + IPv4 + PPP
    Config::SetDefault("ns3::Ipv4GlobalRouting::RandomEcmpRouting", BooleanValue(ecmp));
    uint64_t queuePackets = queue > 0 ? queue : std::max<uint64_t>(1000, g_expectedPackets + 16);
    std::string queueSize = std::to_string(queuePackets) + "p";
    if (qdisc)
    {
        Config::SetDefault("ns3::FqCoDelQueueDisc::MaxSize", StringValue(queueSize));
    }

    NodeContainer hostNodes;
    hostNodes.Create(hosts);
    NodeContainer switchNodes;
    switchNodes.Create(nSwitches);
    if (routing != "global" && routing != "nix")
    {
        Fail("unknown --routing '" + routing + "' (global | nix)");
    }
    InternetStackHelper stack;
    Ipv4NixVectorHelper nix;
    if (routing == "nix")
    {
        stack.SetRoutingHelper(nix);
    }
    stack.Install(hostNodes);
    stack.Install(switchNodes);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(std::max<uint32_t>(1500, frameBytes)));
    p2p.SetChannelAttribute("Delay", StringValue(delay));
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue(queueSize));

    Ipv4AddressHelper address("10.0.0.0", "255.255.255.252");
    NetDeviceContainer allDevices;
    std::vector<Ipv4Address> hostAddress(hosts);
    auto connect = [&](Ptr<Node> a, Ptr<Node> b, int hostIndexA) {
        NetDeviceContainer devices = p2p.Install(a, b);
        Ipv4InterfaceContainer ifaces = address.Assign(devices);
        address.NewNetwork();
        if (hostIndexA >= 0)
        {
            hostAddress[hostIndexA] = ifaces.GetAddress(0);
        }
        allDevices.Add(devices);
    };
    uint32_t links = 0;
    if (topology == "star")
    {
        for (uint32_t h = 0; h < hosts; ++h, ++links)
        {
            connect(hostNodes.Get(h), switchNodes.Get(0), static_cast<int>(h));
        }
    }
    else
    {
        for (uint32_t h = 0; h < hosts; ++h, ++links)
        {
            connect(hostNodes.Get(h), switchNodes.Get(h / down), static_cast<int>(h));
        }
        for (uint32_t l = 0; l < leaves; ++l)
        {
            for (uint32_t s = 0; s < spines; ++s)
            {
                for (uint32_t c = 0; c < parallel; ++c, ++links)
                {
                    connect(switchNodes.Get(l), switchNodes.Get(leaves + s), -1);
                }
            }
        }
    }
    if (!qdisc)
    {
        TrafficControlHelper tch;
        tch.Uninstall(allDevices);
    }
    for (uint32_t i = 0; i < allDevices.GetN(); ++i)
    {
        allDevices.Get(i)->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&CountHop));
    }
    if (routing == "global")
    {
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    }

    // Applications: one UdpServer per receiving host, one UdpClient per flow.
    const uint16_t port = 9;
    std::vector<bool> serving(hosts, false);
    DataRate linkRate(rate);
    Time interval = linkRate.CalculateBytesTxTime(frameBytes);
    for (const auto& [src, dst] : flows)
    {
        if (!serving[dst])
        {
            serving[dst] = true;
            UdpServerHelper server(port);
            ApplicationContainer apps = server.Install(hostNodes.Get(dst));
            apps.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&CountRx));
            apps.Start(Seconds(0));
        }
        UdpClientHelper client(hostAddress[dst], port);
        client.SetAttribute("MaxPackets", UintegerValue(packetsPerFlow));
        client.SetAttribute("Interval", TimeValue(interval));
        client.SetAttribute("PacketSize", UintegerValue(payload));
        client.Install(hostNodes.Get(src)).Start(Seconds(0));
    }
    Simulator::Stop(Seconds(stopTimeS));
    double buildSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();

    auto runStart = std::chrono::steady_clock::now();
    Simulator::Run();
    double runSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart).count();
    uint64_t events = Simulator::GetEventCount();
    int64_t simNs = Simulator::Now().GetNanoSeconds();
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);

    std::ostringstream out;
    out << "{\"baseline\": \"ns-3 "
        << "3.37 PointToPoint + InternetStack + UDP\""
        << ", \"topology\": " << JsonString(topology) << ", \"workload\": " << JsonString(workload)
        << ", \"hosts\": " << hosts << ", \"switches\": " << nSwitches << ", \"links\": " << links
        << ", \"flows\": " << flows.size() << ", \"bytes_per_flow\": " << bytes
        << ", \"payload_bytes\": " << payload << ", \"rate\": " << JsonString(rate)
        << ", \"delay\": " << JsonString(delay) << ", \"qdisc\": " << (qdisc ? "true" : "false")
        << ", \"routing\": " << JsonString(routing)
        << ", \"ecmp\": " << (ecmp && routing == "global" ? "true" : "false")
        << ", \"seed\": " << seed << ", \"packets_sent\": " << g_expectedPackets
        << ", \"packets_received\": " << g_rxPackets
        << ", \"lossless\": " << (g_rxPackets == g_expectedPackets ? "true" : "false")
        << ", \"events\": " << events << ", \"packet_hops\": " << g_hops
        << ", \"sim_time_ns\": " << simNs << ", \"wall_s\": " << runSeconds
        << ", \"build_s\": " << buildSeconds
        << ", \"events_per_s\": " << (runSeconds > 0 ? events / runSeconds : 0.0)
        << ", \"packet_hops_per_s\": " << (runSeconds > 0 ? g_hops / runSeconds : 0.0)
        << ", \"peak_rss_kb\": " << usage.ru_maxrss << "}";
    std::cout << out.str() << std::endl;
    Simulator::Destroy();
    return g_rxPackets == g_expectedPackets ? 0 : 1;
}
