#include "conga-load-balancer.h"

#include "conga-stage.h"
#include "fabric-switch.h"
#include "sim/fabric-now.h"
#include "sim/fabric-plugin.h"

#include "ns3/double.h"
#include "ns3/simulator.h"

#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CongaLoadBalancer);
FABRIC_PLUGIN(FabricPlugin(PluginKind::LoadBalancer,
                           "conga",
                           &CongaLoadBalancer::GetTypeId,
                           "CONGA: per flowlet, leaf-to-leaf congestion fed back")
                  .Section("conga"));

TypeId
CongaLoadBalancer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CongaLoadBalancer")
            .SetParent<SwitchLoadBalancer>()
            .SetGroupName("Fabric")
            .AddConstructor<CongaLoadBalancer>()
            .AddAttribute("FlowletGap",
                          "Idle time between two frames of a flow above which the second starts "
                          "a new flowlet, which may take another uplink (CONGA, SIGCOMM 2014).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&CongaLoadBalancer::m_flowletGap),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("DreAlpha",
                          "alpha of the DRE: every DrePeriod the register keeps 1 - alpha of "
                          "its bytes (CONGA: 0.1).",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&CongaLoadBalancer::m_alpha),
                          MakeDoubleChecker<double>(1e-6, 1.0))
            .AddAttribute("DrePeriod",
                          "T_dre: how often the DRE decays; its time constant is "
                          "DrePeriod / DreAlpha.",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&CongaLoadBalancer::m_drePeriod),
                          MakeTimeChecker(NanoSeconds(1)));
    return tid;
}

CongaLoadBalancer::CongaLoadBalancer()
{
}

void
CongaLoadBalancer::Install(const FabricSwitch& sw)
{
    m_switch = &sw;
    uint32_t n = sw.GetNPorts();
    m_uplinkIndex.assign(n, -1);
    m_uplinks = 0;
    m_isLeaf = false;
    m_dre.assign(n, Dre());
    m_fullBytes.assign(n, 0);
    double tau = m_drePeriod.GetSeconds() / m_alpha;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (sw.IsPortTowardHost(i))
        {
            m_isLeaf = true;
        }
        else
        {
            m_uplinkIndex[i] = static_cast<int>(m_uplinks++);
        }
        m_fullBytes[i] = sw.GetPort(i)->GetDataRate().GetBitRate() / 8.0 * tau;
    }
    if (m_isLeaf && m_uplinks > kCongaMaxUplinks)
    {
        throw SwitchStageError("ns3::CongaLoadBalancer: a leaf with " + std::to_string(m_uplinks) +
                               " uplinks; CONGA's LBTag (4 bits in the IPv4 Identification) "
                               "names at most " +
                               std::to_string(kCongaMaxUplinks));
    }
}

Ptr<EgressStage>
CongaLoadBalancer::CreateCompanionStage()
{
    Ptr<CongaStage> stage = CreateObject<CongaStage>();
    stage->SetLoadBalancer(this);
    return stage;
}

void
CongaLoadBalancer::Decay(Dre& d)
{
    int64_t periods = FabricNow().GetTimeStep() / m_drePeriod.GetTimeStep();
    int64_t k = periods - d.periodsSeen;
    if (k > 0)
    {
        d.bytes = k > 4096 ? 0.0 : d.bytes * std::pow(1.0 - m_alpha, static_cast<double>(k));
        d.periodsSeen = periods;
    }
}

void
CongaLoadBalancer::CountSent(uint16_t port, uint32_t bytes)
{
    Dre& d = m_dre[port];
    Decay(d);
    d.bytes += bytes;
}

uint8_t
CongaLoadBalancer::Metric(uint16_t port)
{
    Dre& d = m_dre[port];
    Decay(d);
    double level = std::floor(8.0 * d.bytes / m_fullBytes[port]);
    return static_cast<uint8_t>(std::min(7.0, level));
}

uint8_t
CongaLoadBalancer::GetCongestionToLeaf(uint32_t leaf, uint32_t uplink) const
{
    auto it = m_toLeaf.find(leaf);
    if (it == m_toLeaf.end() || uplink >= it->second.metric.size())
    {
        return 0;
    }
    return it->second.metric[uplink];
}

void
CongaLoadBalancer::SetCongestionToLeaf(uint32_t leaf, uint32_t uplink, uint8_t metric)
{
    LeafTable& t = m_toLeaf[leaf];
    t.metric.resize(m_uplinks, 0);
    if (uplink < t.metric.size())
    {
        t.metric[uplink] = metric;
    }
}

void
CongaLoadBalancer::SetCongestionFromLeaf(uint32_t leaf, uint32_t uplink, uint8_t metric)
{
    LeafTable& t = m_fromLeaf[leaf];
    if (uplink >= t.metric.size())
    {
        t.metric.resize(uplink + 1, 0); // the source leaf's uplinks, as far as seen
    }
    t.metric[uplink] = metric;
}

bool
CongaLoadBalancer::NextFeedback(uint32_t leaf, uint32_t* uplink, uint8_t* metric)
{
    auto it = m_fromLeaf.find(leaf);
    if (it == m_fromLeaf.end() || it->second.metric.empty())
    {
        return false;
    }
    LeafTable& t = it->second;
    *uplink = t.nextFeedback++ % t.metric.size();
    *metric = t.metric[*uplink];
    return true;
}

uint16_t
CongaLoadBalancer::SelectPort(const FrameInfo& info, const std::vector<uint16_t>& group)
{
    uint32_t hash = FabricFlowHash(info, m_switch->GetHashSalt());
    if (!m_isLeaf)
    {
        return group[hash % group.size()]; // CONGA runs at the leaves; spines hash
    }
    int port = m_flowlets.Lookup(hash, FabricNow(), m_flowletGap, group);
    if (port >= 0)
    {
        return static_cast<uint16_t>(port);
    }
    uint32_t dstLeaf = m_switch->GetLeafOfHost(HostIndexOfIp(info.dstIp));
    uint8_t best = 8;
    m_ties.clear();
    for (uint16_t p : group)
    {
        int uplink = m_uplinkIndex[p];
        uint8_t remote = uplink >= 0 ? GetCongestionToLeaf(dstLeaf, uplink) : 0;
        uint8_t m = std::max(Metric(p), remote);
        if (m < best)
        {
            best = m;
            m_ties.clear();
        }
        if (m == best)
        {
            m_ties.push_back(p);
        }
    }
    uint16_t chosen = m_ties[m_random.GetInteger(0, static_cast<uint32_t>(m_ties.size() - 1))];
    m_flowlets.Assign(chosen);
    return chosen;
}

int64_t
CongaLoadBalancer::GetStreamCount() const
{
    return 1;
}

int64_t
CongaLoadBalancer::AssignStreams(int64_t stream)
{
    m_random.SetStream(stream);
    return 1;
}

} // namespace ns3
