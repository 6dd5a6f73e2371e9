#include "shared-buffer-mmu.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SharedBufferMmu");
NS_OBJECT_ENSURE_REGISTERED(SharedBufferMmu);

TypeId
SharedBufferMmu::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SharedBufferMmu")
            .SetParent<Object>()
            .SetGroupName("Fabric")
            .AddConstructor<SharedBufferMmu>()
            .AddAttribute("BufferSize",
                          "Total packet buffer of the switch, shared by all ports "
                          "(4294967295B = effectively infinite).",
                          QueueSizeValue(QueueSize("32MiB")),
                          MakeQueueSizeAccessor(&SharedBufferMmu::m_bufferSizeAttr),
                          MakeQueueSizeChecker())
            .AddAttribute("PfcEnabled",
                          "Whether lossless priorities use PFC (otherwise every priority is "
                          "lossy and tail-drops).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&SharedBufferMmu::m_pfcEnabled),
                          MakeBooleanChecker())
            .AddAttribute("LosslessPriorities",
                          "Bit mask of lossless priorities (bit i = priority i).",
                          UintegerValue(0x08),
                          MakeUintegerAccessor(&SharedBufferMmu::m_losslessMask),
                          MakeUintegerChecker<uint8_t>())
            .AddAttribute("Headroom",
                          "Headroom reserved per (ingress port, lossless priority); must hold "
                          "what arrives during the one-hop PFC feedback delay.",
                          QueueSizeValue(QueueSize("32KiB")),
                          MakeQueueSizeAccessor(&SharedBufferMmu::m_headroomAttr),
                          MakeQueueSizeChecker())
            .AddAttribute("HeadroomDelayMultiple",
                          "0: every port reserves Headroom. N > 0: each port reserves N x its "
                          "rate x its cable's delay per lossless priority, in whole bytes as the "
                          "HPCC simulators compute it (rate x delay_ns / 8 / 10^9, truncated, "
                          "times N; N = 3 in alibaba-edu/High-Precision-Congestion-Control "
                          "simulation/scratch/third.cc:622-623 and inet-tub/ns3-datacenter "
                          "examples/PowerTCP/powertcp-evaluation-burst.cc:941-944).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SharedBufferMmu::m_headroomDelayMultiple),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("HeadroomOutsideBuffer",
                          "false: the headroom reserve is taken from BufferSize and the shared "
                          "pool is what is left (the HPCC simulator's MMU, switch-mmu.cc:92-93). "
                          "true: BufferSize is the shared pool and the headroom comes on top "
                          "(inet-tub/ns3-datacenter powertcp-evaluation-burst.cc:947-949: buffer "
                          "pool = BUFFER_SIZE + total headroom, ingress pool = BUFFER_SIZE).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&SharedBufferMmu::m_headroomOutsideBuffer),
                          MakeBooleanChecker())
            .AddAttribute("HeadroomPool",
                          "Shared headroom pool: 0 reserves Headroom for every (ingress port, "
                          "lossless priority); otherwise the buffer reserves this many bytes, "
                          "which every paused (port, priority) draws from up to its Headroom. "
                          "Size it for the ports that can pause at once; a frame that finds it "
                          "exhausted is dropped as a headroom violation.",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&SharedBufferMmu::m_headroomPoolAttr),
                          MakeQueueSizeChecker())
            .AddAttribute("XoffThreshold",
                          "Static mode: shared bytes of an (ingress port, priority) at which "
                          "XOFF is sent.",
                          QueueSizeValue(QueueSize("256KiB")),
                          MakeQueueSizeAccessor(&SharedBufferMmu::m_xoffAttr),
                          MakeQueueSizeChecker())
            .AddAttribute("XonThreshold",
                          "Static mode: shared bytes at or below which XON is sent.",
                          QueueSizeValue(QueueSize("128KiB")),
                          MakeQueueSizeAccessor(&SharedBufferMmu::m_xonAttr),
                          MakeQueueSizeChecker())
            .AddAttribute("Policy",
                          "How the PFC thresholds are set: an ns3::MmuPolicy (a scenario's "
                          "switch.mmu: static, dynamic, or a registered policy).",
                          TypeIdValue(StaticMmuPolicy::GetTypeId()),
                          MakeTypeIdAccessor(&SharedBufferMmu::m_policyType),
                          MakeTypeIdChecker())
            .AddAttribute("DynamicThreshold",
                          "Use the dynamic XOFF threshold Alpha x (free shared pool) instead of "
                          "the static XoffThreshold: Policy ns3::DynamicMmuPolicy, whatever "
                          "Policy says.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&SharedBufferMmu::m_dynamic),
                          MakeBooleanChecker())
            .AddAttribute("Alpha",
                          "Dynamic-threshold factor.",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&SharedBufferMmu::m_alpha),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("XonOffset",
                          "Dynamic mode: XON once shared bytes fall this far below the current "
                          "XOFF threshold.",
                          QueueSizeValue(QueueSize("8KiB")),
                          MakeQueueSizeAccessor(&SharedBufferMmu::m_xonOffsetAttr),
                          MakeQueueSizeChecker())
            .AddAttribute("PauseQuanta",
                          "Pause time carried by XOFF frames, in quanta of 512 bit times; the "
                          "switch refreshes the pause before it expires.",
                          UintegerValue(0xFFFF),
                          MakeUintegerAccessor(&SharedBufferMmu::m_pauseQuanta),
                          MakeUintegerChecker<uint16_t>(1));
    return tid;
}

SharedBufferMmu::SharedBufferMmu() = default;

void
SharedBufferMmu::UseCredits(uint64_t reservePerLane, uint8_t lanes)
{
    m_credits = true;
    m_pfcEnabled = false;
    m_losslessMask = lanes;
    m_headroomAttr = QueueSize(QueueSizeUnit::BYTES, static_cast<uint32_t>(reservePerLane));
    m_headroomPoolAttr = QueueSize("0B");
}

void
SharedBufferMmu::SetPortCables(std::vector<std::pair<DataRate, Time>> cables)
{
    m_cables = std::move(cables);
}

void
SharedBufferMmu::Configure(uint32_t nPorts)
{
    m_bufferSize = m_bufferSizeAttr.GetValue();
    m_headroom = m_headroomAttr.GetValue();
    m_headroomPool = m_headroomPoolAttr.GetValue();
    m_xoff = m_xoffAttr.GetValue();
    m_xon = m_xonAttr.GetValue();
    m_xonOffset = m_xonOffsetAttr.GetValue();
    ObjectFactory policy;
    policy.SetTypeId(m_dynamic ? DynamicMmuPolicy::GetTypeId() : m_policyType);
    m_policy = policy.Create<MmuPolicy>();
    m_counters.assign(static_cast<size_t>(nPorts) * kFabricPriorities, Counter());
    m_pausedList.clear();
    m_sharedUsed = 0;
    m_headroomUsed = 0;
    m_maxHeadroomUsed = 0;
    m_nPorts = nPorts;
    m_thresholdDropFrames = 0;
    m_thresholdDropBytes = 0;
    m_portHeadroom.assign(nPorts, m_headroom);
    if (m_headroomDelayMultiple > 0 && !m_credits)
    {
        if (m_cables.size() != nPorts)
        {
            throw std::invalid_argument("HeadroomDelayMultiple needs every port's cable (" +
                                        std::to_string(m_cables.size()) + " of " +
                                        std::to_string(nPorts) + " given)");
        }
        for (uint32_t p = 0; p < nPorts; ++p)
        {
            // The reference's integer arithmetic: rate * delay / 8 / 1000000000 * 3.
            uint64_t bps = m_cables[p].first.GetBitRate();
            uint64_t ns = static_cast<uint64_t>(m_cables[p].second.GetPicoSeconds() / 1000);
            m_portHeadroom[p] = bps * ns / 8 / 1000000000ULL * m_headroomDelayMultiple;
        }
    }
    uint64_t reserved = 0;
    uint64_t largest = nPorts ? *std::max_element(m_portHeadroom.begin(), m_portHeadroom.end()) : 0;
    if (m_pfcEnabled || m_credits)
    {
        uint32_t lossless = 0;
        for (uint8_t p = 0; p < kFabricPriorities; ++p)
        {
            lossless += IsLossless(p) ? 1 : 0;
        }
        for (uint64_t h : m_portHeadroom)
        {
            reserved += h * lossless;
        }
        if (m_headroomPool > 0 && lossless > 0)
        {
            // A pool smaller than one (port, priority)'s headroom could not absorb even one
            // pause: a configuration error, not a run to count drops in.
            if (m_headroomPool < largest)
            {
                throw std::invalid_argument(
                    "the headroom pool (" + std::to_string(m_headroomPool) +
                    " B) is smaller than the headroom of one (port, priority) (" +
                    std::to_string(largest) + " B)");
            }
            reserved = m_headroomPool;
        }
    }
    if (m_headroomOutsideBuffer)
    {
        m_poolSize = m_bufferSize;
        m_bufferSize += reserved;
        AttachPolicy();
        return;
    }
    if (reserved >= m_bufferSize)
    {
        throw std::invalid_argument(
            "the buffer (" + std::to_string(m_bufferSize) +
            " B) cannot hold the headroom reserve of " + std::to_string(reserved) + " B (" +
            (m_headroomPool > 0 ? std::string("the headroom pool")
                                : std::to_string(nPorts) + " ports x lossless priorities x "
                                                           "headroom") +
            ")");
    }
    m_poolSize = m_bufferSize - reserved;
    AttachPolicy();
}

void
SharedBufferMmu::AttachPolicy()
{
    m_policy->Attach(*this);
    m_limitsEgress = m_policy->LimitsLossyEgress();
    m_countsDepartures = m_policy->CountsDepartures();
    m_egressBytes.assign(m_limitsEgress ? static_cast<size_t>(m_nPorts) * kFabricPriorities : 0, 0);
}

bool
SharedBufferMmu::IsLossless(uint8_t priority) const
{
    return (m_pfcEnabled || m_credits) && ((m_losslessMask >> priority) & 1) != 0;
}

bool
SharedBufferMmu::IsPaused(uint32_t port, uint8_t priority) const
{
    return m_counters[port * kFabricPriorities + priority].paused;
}

uint64_t
SharedBufferMmu::GetIngressBytes(uint32_t port, uint8_t priority) const
{
    const Counter& c = m_counters[port * kFabricPriorities + priority];
    return c.shared + c.headroom;
}

uint64_t
SharedBufferMmu::GetHeadroomBytes(uint32_t port, uint8_t priority) const
{
    return m_counters[port * kFabricPriorities + priority].headroom;
}

SharedBufferMmu::Verdict
SharedBufferMmu::Admit(uint32_t port,
                       uint8_t priority,
                       uint32_t bytes,
                       bool* sendXoff,
                       uint32_t outPort,
                       bool unscheduled)
{
    *sendXoff = false;
    Counter& c = At(port, priority);
    bool poolHasRoom = m_sharedUsed + bytes <= m_poolSize;
    if (!IsLossless(priority))
    {
        uint64_t* egress = nullptr;
        if (m_limitsEgress && outPort != kNoEgressPort)
        {
            // The threshold first, as CheckEgressAdmission evaluates it (ABM counts the queue's
            // congestion there) before the pool.
            egress = &m_egressBytes[outPort * kFabricPriorities + priority];
            uint64_t threshold =
                m_policy->LossyEgressThreshold(outPort, priority, PoolState(), unscheduled);
            if (*egress + bytes > threshold)
            {
                ++m_thresholdDropFrames;
                m_thresholdDropBytes += bytes;
                return DROP_THRESHOLD;
            }
        }
        if (!poolHasRoom)
        {
            return DROP_LOSSY;
        }
        if (egress)
        {
            *egress += bytes;
        }
        c.shared += bytes;
        m_sharedUsed += bytes;
        return ADMIT;
    }
    if (!c.paused && poolHasRoom)
    {
        c.shared += bytes;
        m_sharedUsed += bytes;
        if (!m_credits &&
            c.shared >= m_policy->IngressXoffThreshold(port, priority, PoolState(), unscheduled))
        {
            c.paused = true;
            m_pausedList.push_back(port * kFabricPriorities + priority);
            *sendXoff = true;
        }
        return ADMIT;
    }
    // Paused, or the shared pool is exhausted: the frame is one the upstream sent before our
    // pause reached it. It lands in headroom or, if the headroom was sized too small, is lost.
    if (!c.paused && !m_credits)
    {
        c.paused = true;
        m_pausedList.push_back(port * kFabricPriorities + priority);
        *sendXoff = true;
    }
    bool poolExhausted = m_headroomPool > 0 && m_headroomUsed + bytes > m_headroomPool;
    if (c.headroom + bytes > m_portHeadroom[port] || poolExhausted)
    {
        return DROP_HEADROOM;
    }
    c.headroom += bytes;
    m_headroomUsed += bytes;
    m_maxHeadroomUsed = std::max(m_maxHeadroomUsed, m_headroomUsed);
    return ADMIT;
}

bool
SharedBufferMmu::ShouldResume(uint32_t index, const Counter& c)
{
    if (c.headroom > 0)
    {
        return false;
    }
    return m_policy->MayResumeQueue(index / kFabricPriorities,
                                    static_cast<uint8_t>(index % kFabricPriorities),
                                    c.shared,
                                    PoolState());
}

void
SharedBufferMmu::Release(uint32_t port,
                         uint8_t priority,
                         uint32_t bytes,
                         std::vector<std::pair<uint32_t, uint8_t>>* resume,
                         uint32_t outPort,
                         bool sent)
{
    if (outPort != kNoEgressPort)
    {
        if (m_limitsEgress && !IsLossless(priority))
        {
            uint64_t& egress = m_egressBytes[outPort * kFabricPriorities + priority];
            NS_ASSERT(egress >= bytes);
            egress -= bytes;
        }
        if (sent && m_countsDepartures)
        {
            m_policy->FrameSent(port, priority, outPort, bytes);
        }
    }
    Counter& c = At(port, priority);
    uint64_t fromHeadroom = std::min<uint64_t>(c.headroom, bytes);
    c.headroom -= fromHeadroom;
    m_headroomUsed -= fromHeadroom;
    uint64_t fromShared = bytes - fromHeadroom;
    NS_ASSERT(c.shared >= fromShared && m_sharedUsed >= fromShared);
    c.shared -= fromShared;
    m_sharedUsed -= fromShared;
    if (m_pausedList.empty())
    {
        return;
    }
    // Freeing buffer can also lift a pause taken because the pool was full, or (dynamic mode)
    // raise every threshold: check every paused counter, not only this one. Few are paused.
    for (size_t i = 0; i < m_pausedList.size();)
    {
        Counter& pc = m_counters[m_pausedList[i]];
        // Hysteresis on the pool too, so a pause taken because the pool was full does not flap.
        bool poolFull = m_sharedUsed + m_xonOffset > m_poolSize;
        if (!poolFull && ShouldResume(m_pausedList[i], pc))
        {
            pc.paused = false;
            resume->emplace_back(m_pausedList[i] / kFabricPriorities,
                                 static_cast<uint8_t>(m_pausedList[i] % kFabricPriorities));
            m_pausedList[i] = m_pausedList.back();
            m_pausedList.pop_back();
            continue;
        }
        ++i;
    }
}

} // namespace ns3
