#include "rate-dctcp.h"

#include "sim/fabric-plugin.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RateDctcpCongestionControl");
NS_OBJECT_ENSURE_REGISTERED(RateDctcpCongestionControl);
FABRIC_PLUGIN(FabricPlugin(PluginKind::CongestionControl,
                           "dctcp-rate",
                           &RateDctcpCongestionControl::GetTypeId,
                           "rate-based DCTCP of the HPCC simulator, CC_MODE 8 (receivers echo "
                           "ECN in ACKs)")
                  .Transport("roce")
                  .Section("dctcp_rate")
                  .EchoesEcn());

TypeId
RateDctcpCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RateDctcpCongestionControl")
            .SetParent<RoceCongestionControl>()
            .SetGroupName("Fabric")
            .AddConstructor<RateDctcpCongestionControl>()
            .AddAttribute("RateAi",
                          "Rate increase once per window of data outside CWR (HPCC simulator "
                          "DCTCP_RATE_AI 1000Mb/s, alibaba-edu/High-Precision-Congestion-Control "
                          "simulation/mix/config.txt:25; rdma-hw.cc:167 DctcpRateAI).",
                          DataRateValue(DataRate("1000Mbps")),
                          MakeDataRateAccessor(&RateDctcpCongestionControl::m_rateAi),
                          MakeDataRateChecker())
            .AddAttribute("G",
                          "Gain g of alpha <- (1-g) alpha + g F, once per window of data (HPCC "
                          "simulator EWMA_GAIN 0.00390625 = 1/256, "
                          "alibaba-edu/High-Precision-Congestion-Control "
                          "simulation/mix/config.txt:20; rdma-hw.cc:57 EwmaGain).",
                          DoubleValue(1.0 / 256),
                          MakeDoubleAccessor(&RateDctcpCongestionControl::m_g),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("InitialAlpha",
                          "Alpha at the start of a QP (HPCC simulator dctcp.m_alpha = 1, "
                          "alibaba-edu/High-Precision-Congestion-Control "
                          "simulation/src/point-to-point/model/rdma-queue-pair.cc:63).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RateDctcpCongestionControl::m_initialAlpha),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("MinRate",
                          "Floor of the rate after a cut (HPCC simulator MIN_RATE 100Mb/s, "
                          "alibaba-edu/High-Precision-Congestion-Control "
                          "simulation/mix/config.txt:24; rdma-hw.cc:22 MinRate).",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&RateDctcpCongestionControl::m_minRate),
                          MakeDataRateChecker());
    return tid;
}

RateDctcpCongestionControl::RateDctcpCongestionControl() = default;

RateDctcpCongestionControl::~RateDctcpCongestionControl() = default;

void
RateDctcpCongestionControl::Start(DataRate lineRate)
{
    NS_LOG_FUNCTION(this << lineRate);
    const CcSender& sender = Sender();
    m_mtu = sender.mtu ? sender.mtu : sender.packetBytes;
    NS_ABORT_MSG_IF(m_mtu == 0, "dctcp-rate needs the payload MTU (start it with a CcSender)");
    NS_ABORT_MSG_IF(lineRate.GetBitRate() == 0, "dctcp-rate needs a non-zero line rate");
    m_lineRate = lineRate.GetBitRate();
    m_rate = m_lineRate; // rdma-hw.cc:239-241: m_rate = m_max_rate = the NIC's rate
    m_alpha = m_initialAlpha;
    m_ackSeq = 0;
    m_lastUpdateSeq = 0;
    m_ecnCnt = 0;
    m_batchSize = 0;
    m_cwr = false;
    m_highSeq = 0;
}

void
RateDctcpCongestionControl::Stop()
{
}

DataRate
RateDctcpCongestionControl::GetRate() const
{
    return DataRate(m_rate);
}

void
RateDctcpCongestionControl::OnCnp()
{
}

void
RateDctcpCongestionControl::OnBytesSent(uint32_t /* bytes */)
{
}

void
RateDctcpCongestionControl::OnAck(const CcFeedback& ack)
{
    m_ackSeq += ack.ackedBytes;
    const uint64_t sndNxt = m_ackSeq + ack.inflightBytes;
    bool newBatch = false;

    // Alpha, once per window of data (rdma-hw.cc:1003-1027).
    m_ecnCnt += ack.ecnEcho ? 1 : 0;
    if (m_ackSeq > m_lastUpdateSeq)
    {
        newBatch = true;
        if (m_lastUpdateSeq == 0)
        {
            // The first window: only its end is recorded (ecnCnt carries on).
            m_lastUpdateSeq = sndNxt;
            m_batchSize = sndNxt / m_mtu + 1;
        }
        else
        {
            const double frac = std::min(1.0, double(m_ecnCnt) / double(m_batchSize));
            m_alpha = (1 - m_g) * m_alpha + m_g * frac;
            m_lastUpdateSeq = sndNxt;
            m_ecnCnt = 0;
            m_batchSize = (sndNxt - m_ackSeq) / m_mtu + 1;
            NS_LOG_DEBUG("F=" << frac << " alpha=" << m_alpha);
        }
    }

    // CWR ends once the ACK passes what was sent at the cut (rdma-hw.cc:1029-1033).
    if (m_cwr && m_ackSeq > m_highSeq)
    {
        m_cwr = false;
    }

    // ECN outside CWR: cut by alpha/2 (rdma-hw.cc:1035-1045). The reference's
    // DataRate * double truncates to whole bit/s.
    if (ack.ecnEcho && !m_cwr)
    {
        const auto cut = static_cast<uint64_t>(double(m_rate) * (1 - m_alpha / 2));
        m_rate = std::max<uint64_t>(m_minRate.GetBitRate(), cut);
        m_cwr = true;
        m_highSeq = sndNxt;
        NS_LOG_DEBUG("cut: rate=" << m_rate);
    }

    // Additive increase once per window outside CWR (rdma-hw.cc:1047-1049).
    if (!m_cwr && newBatch)
    {
        m_rate = std::min(m_lineRate, m_rate + m_rateAi.GetBitRate());
    }
}

std::string
RateDctcpCongestionControl::GetName() const
{
    return "dctcp-rate";
}

double
RateDctcpCongestionControl::GetTraceValue() const
{
    return m_alpha;
}

double
RateDctcpCongestionControl::GetAlpha() const
{
    return m_alpha;
}

bool
RateDctcpCongestionControl::InCwr() const
{
    return m_cwr;
}

} // namespace ns3
