#ifndef FABRIC_CONGA_STAGE_H
#define FABRIC_CONGA_STAGE_H

#include "switch-stages.h"

namespace ns3
{

class CongaLoadBalancer;

/**
 * \ingroup fabric-switch-pipeline
 * \brief CONGA's in-band field, carried in the IPv4 Identification (16 bits, no extra wire
 * bytes): valid (1), LBTag (4: the source leaf's uplink), CE (3: the path's congestion),
 * feedback valid (1), FB_LBTag (4), FB_Metric (3).
 */
struct CongaField
{
    bool valid = false;
    uint8_t lbTag = 0;
    uint8_t ce = 0;
    bool feedback = false;
    uint8_t fbLbTag = 0;
    uint8_t fbMetric = 0;

    uint16_t Encode() const
    {
        return static_cast<uint16_t>((valid ? 0x8000 : 0) | (lbTag & 0xF) << 11 | (ce & 7) << 8 |
                                     (feedback ? 0x80 : 0) | (fbLbTag & 0xF) << 3 | (fbMetric & 7));
    }

    static CongaField Decode(uint16_t v)
    {
        CongaField f;
        f.valid = (v & 0x8000) != 0;
        f.lbTag = (v >> 11) & 0xF;
        f.ce = (v >> 8) & 7;
        f.feedback = (v & 0x80) != 0;
        f.fbLbTag = (v >> 3) & 0xF;
        f.fbMetric = v & 7;
        return f;
    }
};

/**
 * \ingroup fabric-switch-pipeline
 * \brief The egress half of CONGA (CongaLoadBalancer creates it on its switch): counts every
 * frame a port sends into its DRE; at a leaf, stamps frames entering the fabric (LBTag, CE,
 * feedback) and reads frames leaving it (congestion-from-leaf, congestion-to-leaf); elsewhere
 * raises CE to the egress port's metric.
 */
class CongaStage : public EgressStage
{
  public:
    static TypeId GetTypeId();

    void SetLoadBalancer(CongaLoadBalancer* lb)
    {
        m_lb = lb;
    }

    void Install(const FabricSwitch& sw) override;
    bool RunsOnDequeue() const override;
    StageVerdict OnDequeue(FabricNetDevice& port, QueuedFrame& item) override;

  private:
    CongaLoadBalancer* m_lb = nullptr; ///< owned by the same switch
    std::vector<bool> m_towardHost;    ///< by port
};

} // namespace ns3

#endif
