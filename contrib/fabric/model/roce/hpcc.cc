#include "hpcc.h"

#include "sim/fabric-plugin.h"

#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(HpccCongestionControl);
FABRIC_PLUGIN(FabricPlugin(PluginKind::CongestionControl,
                           "hpcc",
                           &HpccCongestionControl::GetTypeId,
                           "HPCC sender (reads in-band telemetry: switches stamp INT)")
                  .Transport("roce")
                  .Section("hpcc")
                  .SwitchStage("int-stamp"));

TypeId
HpccCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HpccCongestionControl")
            .SetParent<IntWindowControl>()
            .SetGroupName("Fabric")
            .AddConstructor<HpccCongestionControl>()
            .AddAttribute("Eta",
                          "Target utilisation η of the most loaded link (HPCC simulator run.py:71 "
                          "--utgt 95 -> U_TARGET; paper §5: 95%).",
                          DoubleValue(0.95),
                          MakeDoubleAccessor(&HpccCongestionControl::m_eta),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("MaxStage",
                          "Additive-increase steps (reference updates below η) before a "
                          "multiplicative update toward η. 0: a multiplicative step every "
                          "update, as the HPCC authors' evaluation runs (alibaba-edu/"
                          "High-Precision-Congestion-Control simulation/run.py:72 --mi default "
                          "0 -> MI_THRESH, run.py:41).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&HpccCongestionControl::m_maxStage),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("WAi",
                          "Additive increase W_AI of the window per update. 0B: line rate x "
                          "BaseRtt / 2500 (HPCC simulator run.py:112: RATE_AI = 10 bw/25 Mb/s "
                          "for a NIC of bw Gb/s).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&HpccCongestionControl::m_wAi),
                          MakeQueueSizeChecker())
            .AddAttribute("BaseRtt",
                          "T: the base round trip the window is sized for (the line-rate "
                          "window is line rate x T) and the EWMA period of U.",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&HpccCongestionControl::m_baseRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("MinRate",
                          "Floor of the rate W/T (HPCC simulator run.py:28: MIN_RATE 1000Mb/s).",
                          DataRateValue(DataRate("1Gbps")),
                          MakeDataRateAccessor(&HpccCongestionControl::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("InitialU",
                          "U before the first measurement (HPCC simulator rdma-queue-pair.cc:49: "
                          "hp.u = 1).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&HpccCongestionControl::m_initialU),
                          MakeDoubleChecker<double>(0.0));
    return tid;
}

void
HpccCongestionControl::StartAlgorithm()
{
    m_wAiBytes = m_wAi.GetValue() ? static_cast<double>(m_wAi.GetValue()) : m_maxWindow / 2500;
    m_wc = m_w;
    m_u = m_initialU;
    m_incStage = 0;
}

double
HpccCongestionControl::HopSignal(const IntHop& hop, const IntHop& prev, double dt) const
{
    const double t = m_baseRtt.GetSeconds();
    double b = static_cast<double>(hop.GetLineRate().GetBitRate());
    double txRate = hop.BytesSince(prev) * 8.0 / dt;
    double qlen = static_cast<double>(std::min(hop.GetQueueBytes(), prev.GetQueueBytes()));
    return qlen * 8 / (b * t) + txRate / b;
}

void
HpccCongestionControl::Smooth(double peak, double dt)
{
    const double t = m_baseRtt.GetSeconds();
    m_u = (1 - dt / t) * m_u + dt / t * peak;
}

void
HpccCongestionControl::UpdateWindow(bool newRtt)
{
    double w;
    if (m_u >= m_eta || m_incStage >= m_maxStage)
    {
        // Multiplicative step toward η (U/η floored so that an idle path cannot divide by 0;
        // the window is capped at the line rate below anyway).
        w = m_wc / std::max(m_u / m_eta, 1e-9) + m_wAiBytes;
        if (newRtt)
        {
            m_incStage = 0;
        }
    }
    else
    {
        w = m_wc + m_wAiBytes;
        if (newRtt)
        {
            ++m_incStage;
        }
    }
    w = std::clamp(w, m_minWindow, m_maxWindow);
    if (newRtt)
    {
        m_wc = w;
    }
    m_w = w;
}

double
HpccCongestionControl::GetCongestionEstimate() const
{
    return m_u;
}

std::string
HpccCongestionControl::GetName() const
{
    return "hpcc";
}

} // namespace ns3
