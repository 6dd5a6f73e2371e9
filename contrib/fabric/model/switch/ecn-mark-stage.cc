#include "ecn-mark-stage.h"

#include "fabric-switch.h"
#include "link/fabric-net-device.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EcnMarkStage");
NS_OBJECT_ENSURE_REGISTERED(EcnMarkStage);

TypeId
EcnMarkStage::GetTypeId()
{
    static TypeId tid = TypeId("ns3::EcnMarkStage")
                            .SetParent<EgressStage>()
                            .SetGroupName("Fabric")
                            .AddConstructor<EcnMarkStage>();
    return tid;
}

EcnMarkStage::EcnMarkStage()
{
}

void
EcnMarkStage::Configure(bool enabled, QueueSize kmin, QueueSize kmax, double pmax, MarkPoint point)
{
    m_enabled = enabled;
    m_kmin = kmin;
    m_kmax = kmax;
    m_pmax = pmax;
    m_markPoint = point;
}

void
EcnMarkStage::ConfigureSpeedMap(const std::string& map)
{
    m_bySpeed.clear();
    std::istringstream entries(map);
    std::string entry;
    while (std::getline(entries, entry, ','))
    {
        std::istringstream fields(entry);
        std::string rate;
        std::string kmin;
        std::string kmax;
        std::string pmax;
        bool ok = std::getline(fields, rate, ':') && std::getline(fields, kmin, ':') &&
                  std::getline(fields, kmax, ':') && std::getline(fields, pmax);
        NS_ABORT_MSG_UNLESS(ok, "EcnSpeedMap: '" << entry << "' is not RATE:KMIN:KMAX:PMAX");
        EcnCurve c;
        c.kmin = QueueSize(kmin).GetValue();
        c.kmax = QueueSize(kmax).GetValue();
        c.pmax = std::stod(pmax);
        m_bySpeed[DataRate(rate).GetBitRate()] = c;
    }
}

void
EcnMarkStage::DoDispose()
{
    m_rng.Dispose();
    EgressStage::DoDispose();
}

void
EcnMarkStage::Install(const FabricSwitch& sw)
{
    uint32_t n = sw.GetNPorts();
    m_curves.assign(n, EcnCurve());
    for (uint32_t i = 0; i < n; ++i)
    {
        // The HPCC simulator's per-speed map (alibaba-edu/High-Precision-Congestion-Control,
        // simulation/run.py:96-97, in KB of 1000 B as switch-mmu.cc:112 reads them): Kmin
        // 100 KB and Kmax 400 KB per 25 Gb/s of port rate; ns3-datacenter's PowerTCP
        // experiments use the same map (examples/PowerTCP/config-burst.txt, KMIN_MAP).
        const double per25G = static_cast<double>(sw.GetPort(i)->GetDataRate().GetBitRate()) / 25e9;
        EcnCurve& c = m_curves[i];
        c.kmin = m_kmin.GetValue() ? m_kmin.GetValue()
                                   : static_cast<uint64_t>(std::llround(100e3 * per25G));
        c.kmax = m_kmax.GetValue() ? m_kmax.GetValue()
                                   : static_cast<uint64_t>(std::llround(400e3 * per25G));
        c.pmax = m_pmax;
        auto listed = m_bySpeed.find(sw.GetPort(i)->GetDataRate().GetBitRate());
        if (listed != m_bySpeed.end())
        {
            c = listed->second;
        }
        NS_LOG_INFO("port " << i << " kmin " << c.kmin << " kmax " << c.kmax << " pmax " << c.pmax);
    }
}

int64_t
EcnMarkStage::AssignStreams(int64_t stream)
{
    m_rng.SetStream(stream);
    return 1;
}

StageVerdict
EcnMarkStage::OnEnqueue(FabricNetDevice& port, QueuedFrame& item, uint64_t queueBytes)
{
    return MaybeMark(port.GetPortIndex(), item, queueBytes);
}

StageVerdict
EcnMarkStage::OnDequeue(FabricNetDevice& port, QueuedFrame& item)
{
    return MaybeMark(port.GetPortIndex(), item, port.GetQueueBytes(item.priority));
}

StageVerdict
EcnMarkStage::MaybeMark(uint32_t port, const QueuedFrame& item, uint64_t queueBytes)
{
    const FrameInfo& info = item.info;
    if (!info.IsEcnCapable() || info.ecn == 3)
    {
        return StageVerdict::Pass();
    }
    double p = m_curves[port].Probability(queueBytes);
    if (p <= 0.0)
    {
        return StageVerdict::Pass();
    }
    if (p >= 1.0 || m_rng.GetValue() < p)
    {
        ++m_marked;
        return StageVerdict::Mark(MARK_ECN_CURVE);
    }
    return StageVerdict::Pass();
}

} // namespace ns3
