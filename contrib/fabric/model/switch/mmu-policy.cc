#include "mmu-policy.h"

#include "shared-buffer-mmu.h"
#include "sim/fabric-plugin.h"
#include "switch-stages.h"

#include "ns3/double.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MmuPolicy);
NS_OBJECT_ENSURE_REGISTERED(StaticMmuPolicy);
FABRIC_PLUGIN(FabricPlugin(PluginKind::MmuPolicy,
                           "static",
                           &StaticMmuPolicy::GetTypeId,
                           "XOFF at switch.pfc.xoff, XON at switch.pfc.xon"));
NS_OBJECT_ENSURE_REGISTERED(DynamicMmuPolicy);
FABRIC_PLUGIN(FabricPlugin(PluginKind::MmuPolicy,
                           "dynamic",
                           &DynamicMmuPolicy::GetTypeId,
                           "XOFF at switch.pfc.dynamic_alpha x the free shared buffer, XON "
                           "switch.pfc.xon_offset below it; with dynamic_threshold.lossy_alpha "
                           "each lossy egress queue at alpha x the free shared buffer")
                  .Section("dynamic_threshold"));
NS_OBJECT_ENSURE_REGISTERED(AbmMmuPolicy);
FABRIC_PLUGIN(FabricPlugin(PluginKind::MmuPolicy,
                           "abm",
                           &AbmMmuPolicy::GetTypeId,
                           "Active Buffer Management (SIGCOMM 2022): each lossy egress queue and "
                           "each lossless ingress queue at alpha_p x free x mu / n_p")
                  .Section("abm"));

TypeId
MmuPolicy::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MmuPolicy").SetParent<Object>().SetGroupName("Fabric");
    return tid;
}

TypeId
StaticMmuPolicy::GetTypeId()
{
    static TypeId tid = TypeId("ns3::StaticMmuPolicy")
                            .SetParent<MmuPolicy>()
                            .SetGroupName("Fabric")
                            .AddConstructor<StaticMmuPolicy>();
    return tid;
}

uint64_t
StaticMmuPolicy::XoffThreshold(const MmuPoolState& pool) const
{
    return pool.xoff;
}

bool
StaticMmuPolicy::MayResume(uint64_t shared, const MmuPoolState& pool) const
{
    return shared <= pool.xon;
}

std::array<double, 8>
ParsePriorityAlphas(const std::string& list, const std::string& what, double empty)
{
    std::array<double, 8> alpha;
    alpha.fill(empty);
    if (list.empty())
    {
        return alpha;
    }
    std::vector<double> values;
    std::istringstream in(list);
    std::string item;
    while (std::getline(in, item, ','))
    {
        size_t used = 0;
        double v = -1;
        try
        {
            v = std::stod(item, &used);
        }
        catch (const std::exception&)
        {
            used = 0;
        }
        if (used == 0 || item.find_first_not_of(" \t", used) != std::string::npos || v < 0 ||
            !std::isfinite(v))
        {
            throw std::invalid_argument(what + ": '" + item +
                                        "' is not a non-negative number (a list like 0.5 or "
                                        "1,0.5,0.25)");
        }
        values.push_back(v);
    }
    if (values.empty() || values.size() > alpha.size())
    {
        throw std::invalid_argument(what + ": give 1 to 8 numbers, one per priority from 0");
    }
    for (size_t p = 0; p < alpha.size(); ++p)
    {
        alpha[p] = values[std::min(p, values.size() - 1)];
    }
    return alpha;
}

TypeId
DynamicMmuPolicy::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DynamicMmuPolicy")
            .SetParent<MmuPolicy>()
            .SetGroupName("Fabric")
            .AddConstructor<DynamicMmuPolicy>()
            .AddAttribute(
                "LossyAlpha",
                "Empty (default): lossy frames are dropped only when the shared pool is full. "
                "Otherwise alpha per priority (\"a\" for all, or \"a0,a1,...\", the last "
                "repeating): a lossy frame is dropped when its egress queue would exceed alpha_p "
                "x the free shared pool (inet-tub/ns3-datacenter simulator/ns-3.39/src/"
                "point-to-point/model/switch-mmu.cc DynamicThreshold \"egress\" and "
                "CheckEgressAdmission; the ABM paper's DT baseline uses 0.5, its "
                "examples/ABM/alphas).",
                StringValue(""),
                MakeStringAccessor(&DynamicMmuPolicy::m_lossyAlphaList),
                MakeStringChecker());
    return tid;
}

uint64_t
DynamicMmuPolicy::XoffThreshold(const MmuPoolState& pool) const
{
    uint64_t free = pool.poolSize > pool.sharedUsed ? pool.poolSize - pool.sharedUsed : 0;
    return static_cast<uint64_t>(pool.alpha * static_cast<double>(free));
}

bool
DynamicMmuPolicy::MayResume(uint64_t shared, const MmuPoolState& pool) const
{
    return shared + pool.xonOffset <= XoffThreshold(pool) || shared == 0;
}

void
DynamicMmuPolicy::Attach(const SharedBufferMmu& mmu)
{
    m_mmu = &mmu;
    try
    {
        m_lossyAlpha =
            ParsePriorityAlphas(m_lossyAlphaList, "ns3::DynamicMmuPolicy::LossyAlpha", 0);
    }
    catch (const std::invalid_argument& e)
    {
        throw SwitchStageError(e.what()); // an attribute's value: fabric-run names it
    }
}

bool
DynamicMmuPolicy::LimitsLossyEgress() const
{
    return !m_lossyAlphaList.empty();
}

uint64_t
DynamicMmuPolicy::LossyEgressThreshold(uint32_t port,
                                       uint8_t priority,
                                       const MmuPoolState& pool,
                                       bool unscheduled)
{
    // DT gives unscheduled frames no other alpha (DynamicThreshold takes no unsched,
    // switch-mmu.cc:341-366).
    // The reference's min(uint64_t(alpha x remaining), UINT64_MAX - 1 MiB) (switch-mmu.cc:361).
    double t = m_lossyAlpha[priority] * static_cast<double>(pool.Free());
    return t >= 1.8e19 ? UINT64_MAX - 1024 * 1024 : static_cast<uint64_t>(t);
}

bool
DynamicMmuPolicy::QueueThreshold(uint32_t port,
                                 uint8_t priority,
                                 const MmuPoolState& pool,
                                 MmuQueueThreshold* out) const
{
    if (!m_mmu || m_mmu->IsLossless(priority))
    {
        if (!m_mmu || !m_mmu->PfcEnabled() || m_mmu->UsesCredits())
        {
            return false;
        }
        out->ingress = true;
        out->bytes = m_mmu->GetIngressBytes(port, priority);
        out->threshold = XoffThreshold(pool);
        return true;
    }
    if (!LimitsLossyEgress())
    {
        return false;
    }
    out->ingress = false;
    out->bytes = m_mmu->GetEgressBytes(port, priority);
    double t = m_lossyAlpha[priority] * static_cast<double>(pool.Free());
    out->threshold = t >= 1.8e19 ? UINT64_MAX - 1024 * 1024 : static_cast<uint64_t>(t);
    return true;
}

TypeId
AbmMmuPolicy::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::AbmMmuPolicy")
            .SetParent<MmuPolicy>()
            .SetGroupName("Fabric")
            .AddConstructor<AbmMmuPolicy>()
            .AddAttribute(
                "Alpha",
                "alpha_p per priority: \"a\" for all, or \"a0,a1,...\" (the last repeating). "
                "Default 0.5, the data priorities' alpha of the ABM paper's runs "
                "(inet-tub/ns3-datacenter simulator/ns-3.39/examples/ABM/alphas, lines 2-4).",
                StringValue("0.5"),
                MakeStringAccessor(&AbmMmuPolicy::m_alphaList),
                MakeStringChecker())
            .AddAttribute(
                "UnscheduledAlpha",
                "The alpha of unscheduled frames, those the sender's NIC sent within their "
                "flow's first base BDP (line rate x roce.base_rtt; inet-tub/ns3-datacenter "
                "simulator/ns-3.39/src/point-to-point/model/rdma-hw.cc:567-583, UnSchedTag), "
                "in place of alpha_p in the lossy egress and the lossless ingress threshold "
                "(switch-mmu.cc:467-468, 496-497). Default 1024, the reference's alphaHigh, "
                "\"a sky high threshold for all unscheduled packets\" (switch-mmu.cc:145). "
                "Set it to Alpha to treat every frame alike.",
                DoubleValue(1024),
                MakeDoubleAccessor(&AbmMmuPolicy::m_unscheduledAlpha),
                MakeDoubleChecker<double>(0.0))
            .AddAttribute(
                "CongestionIndicator",
                "Queue bytes at which a queue counts as one whole congested queue in n_p (it "
                "counts bytes / CongestionIndicator below) and above which its dequeue rate is "
                "measured (inet-tub/ns3-datacenter switch-mmu.cc:130, 20 x 1024 B).",
                QueueSizeValue(QueueSize("20KiB")),
                MakeQueueSizeAccessor(&AbmMmuPolicy::m_congestionIndicatorAttr),
                MakeQueueSizeChecker())
            .AddAttribute("UpdateInterval",
                          "How often every queue's normalized dequeue rate mu is measured "
                          "(inet-tub/ns3-datacenter switch-mmu.cc:144, updateIntervalNS = 25 us).",
                          TimeValue(MicroSeconds(25)),
                          MakeTimeAccessor(&AbmMmuPolicy::m_interval),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute(
                "MinDequeueBytes",
                "A congested queue that sent at most this much in an interval keeps "
                "mu = 1 (inet-tub/ns3-datacenter switch-mmu.cc:426, 437: temp > 2 x 1024).",
                QueueSizeValue(QueueSize("2KiB")),
                MakeQueueSizeAccessor(&AbmMmuPolicy::m_minDequeueAttr),
                MakeQueueSizeChecker());
    return tid;
}

AbmMmuPolicy::AbmMmuPolicy() = default;

AbmMmuPolicy::~AbmMmuPolicy() = default;

void
AbmMmuPolicy::DoDispose()
{
    m_update.Cancel();
    m_mmu = nullptr;
    MmuPolicy::DoDispose();
}

uint64_t
AbmMmuPolicy::XoffThreshold(const MmuPoolState& pool) const
{
    // Only for a caller that names no queue: the threshold of a queue with n_p = mu = 1.
    return Threshold(m_alpha[3], pool.Free(), 1, 1);
}

bool
AbmMmuPolicy::MayResume(uint64_t shared, const MmuPoolState& pool) const
{
    return shared + pool.xonOffset <= XoffThreshold(pool) || shared == 0;
}

void
AbmMmuPolicy::Attach(const SharedBufferMmu& mmu)
{
    m_mmu = &mmu;
    try
    {
        m_alpha = ParsePriorityAlphas(m_alphaList, "ns3::AbmMmuPolicy::Alpha", 0.5);
    }
    catch (const std::invalid_argument& e)
    {
        throw SwitchStageError(e.what()); // an attribute's value: fabric-run names it
    }
    m_congestionIndicator = m_congestionIndicatorAttr.GetValue();
    if (m_congestionIndicator == 0)
    {
        throw SwitchStageError("ns3::AbmMmuPolicy::CongestionIndicator must be positive");
    }
    m_minDequeue = m_minDequeueAttr.GetValue();
    m_nPorts = mmu.GetNPorts();
    m_portBps.assign(m_nPorts, 0);
    for (uint32_t p = 0; p < m_nPorts; ++p)
    {
        m_portBps[p] = static_cast<double>(mmu.GetPortRate(p).GetBitRate());
        if (m_portBps[p] <= 0)
        {
            throw SwitchStageError("ns3::AbmMmuPolicy normalizes dequeue rates by the port's "
                                   "rate: port " +
                                   std::to_string(p) + " has none");
        }
    }
    size_t queues = static_cast<size_t>(m_nPorts) * 8;
    for (Side* s : {&m_egress, &m_ingress})
    {
        s->saturated.assign(queues, 0);
        s->sent.assign(queues, 0);
        s->rate.assign(queues, 1.0);
        s->congested.fill(0);
    }
    m_started = false;
    m_update.Cancel();
}

uint64_t
AbmMmuPolicy::Threshold(double alpha, uint64_t free, double n, double mu)
{
    // switch-mmu.cc:473, 502: alphaP * (remaining) * (1.0 / GetNofP) * (getDequeueRate), then
    // uint64_t, capped at UINT64_MAX - 1 MiB.
    double t = alpha * static_cast<double>(free) * (1.0 / n) * mu;
    return t >= 1.8e19 ? UINT64_MAX - 1024 * 1024 : static_cast<uint64_t>(t);
}

double
AbmMmuPolicy::CongestedQueues(bool ingress, uint8_t priority) const
{
    const Side& s = ingress ? m_ingress : m_egress;
    // GetNofP: the sum of saturation levels, at least 1. Kept as whole bytes, so that the sum
    // does not drift as the reference's running double does.
    double n =
        static_cast<double>(s.congested[priority]) / static_cast<double>(m_congestionIndicator);
    return n < 1 ? 1 : n;
}

double
AbmMmuPolicy::DrainRate(bool ingress, uint32_t port, uint8_t priority) const
{
    const Side& s = ingress ? m_ingress : m_egress;
    return s.rate[port * 8 + priority];
}

uint64_t
AbmMmuPolicy::QueueBytes(bool ingress, uint32_t port, uint8_t priority) const
{
    return ingress ? m_mmu->GetIngressBytes(port, priority) : m_mmu->GetEgressBytes(port, priority);
}

void
AbmMmuPolicy::Observe(Side& side, uint32_t index, uint64_t bytes)
{
    uint64_t saturated = std::min(bytes, m_congestionIndicator);
    uint64_t& old = side.saturated[index];
    uint64_t& sum = side.congested[index % 8];
    sum = sum - old + saturated;
    old = saturated;
}

void
AbmMmuPolicy::StartUpdates()
{
    if (!m_started)
    {
        m_started = true;
        UpdateRates();
    }
}

void
AbmMmuPolicy::UpdateRates()
{
    double intervalNs = static_cast<double>(m_interval.GetNanoSeconds());
    for (bool ingress : {false, true})
    {
        Side& s = ingress ? m_ingress : m_egress;
        for (uint32_t port = 0; port < m_nPorts; ++port)
        {
            for (uint8_t q = 0; q < 8; ++q)
            {
                uint32_t i = port * 8 + q;
                uint64_t sent = s.sent[i];
                if (sent == 0 && s.rate[i] == 1)
                {
                    continue; // nothing sent, mu stays 1: most queues of a large fabric
                }
                s.sent[i] = 0;
                // switch-mmu.cc:422-441: (1e9 x bytes x 8 / interval_ns) / port rate, when the
                // queue holds more than the congestion indicator and sent more than 2 KiB.
                if (sent > m_minDequeue && QueueBytes(ingress, port, q) > m_congestionIndicator)
                {
                    s.rate[i] =
                        (1e9 * static_cast<double>(sent) * 8.0 / intervalNs) / m_portBps[port];
                }
                else
                {
                    s.rate[i] = 1;
                }
            }
        }
    }
    m_update = Simulator::Schedule(m_interval, &AbmMmuPolicy::UpdateRates, this);
}

uint64_t
AbmMmuPolicy::QueueThreshold(bool ingress,
                             uint32_t port,
                             uint8_t priority,
                             const MmuPoolState& pool,
                             bool unscheduled)
{
    StartUpdates();
    Side& side = ingress ? m_ingress : m_egress;
    uint32_t i = port * kFabricPriorities + priority;
    Observe(side, i, QueueBytes(ingress, port, priority));
    // switch-mmu.cc:466-471 (ingress), 494-500 (egress): alphaHigh for an unscheduled packet,
    // else the queue's alpha.
    return Threshold(unscheduled ? m_unscheduledAlpha : m_alpha[priority],
                     pool.Free(),
                     CongestedQueues(ingress, priority),
                     side.rate[i]);
}

uint64_t
AbmMmuPolicy::LossyEgressThreshold(uint32_t port,
                                   uint8_t priority,
                                   const MmuPoolState& pool,
                                   bool unscheduled)
{
    return QueueThreshold(false, port, priority, pool, unscheduled);
}

uint64_t
AbmMmuPolicy::IngressXoffThreshold(uint32_t port,
                                   uint8_t priority,
                                   const MmuPoolState& pool,
                                   bool unscheduled)
{
    return QueueThreshold(true, port, priority, pool, unscheduled);
}

bool
AbmMmuPolicy::MayResumeQueue(uint32_t port,
                             uint8_t priority,
                             uint64_t shared,
                             const MmuPoolState& pool)
{
    // As CheckShouldResume (switch-mmu.cc:1014-1020), which computes the threshold (and so
    // refreshes the queue's saturation) of the paused queue it checks, with unsched 0
    // (switch-mmu.cc:1024-1025).
    return shared + pool.xonOffset <= IngressXoffThreshold(port, priority, pool, false) ||
           shared == 0;
}

void
AbmMmuPolicy::FrameSent(uint32_t inPort, uint8_t priority, uint32_t outPort, uint32_t bytes)
{
    // RemoveFromIngressAdmission / RemoveFromEgressAdmission (switch-mmu.cc:903, 978).
    m_ingress.sent[inPort * 8 + priority] += bytes;
    m_egress.sent[outPort * 8 + priority] += bytes;
}

bool
AbmMmuPolicy::QueueThreshold(uint32_t port,
                             uint8_t priority,
                             const MmuPoolState& pool,
                             MmuQueueThreshold* out) const
{
    if (!m_mmu)
    {
        return false;
    }
    bool ingress = m_mmu->IsLossless(priority);
    if (ingress && (!m_mmu->PfcEnabled() || m_mmu->UsesCredits()))
    {
        return false;
    }
    out->ingress = ingress;
    out->bytes = QueueBytes(ingress, port, priority);
    out->congested = CongestedQueues(ingress, priority);
    out->drainRate = DrainRate(ingress, port, priority);
    out->threshold = Threshold(m_alpha[priority], pool.Free(), out->congested, out->drainRate);
    return true;
}

} // namespace ns3
