#ifndef FABRIC_CONGA_LOAD_BALANCER_H
#define FABRIC_CONGA_LOAD_BALANCER_H

#include "flowlet-table.h"
#include "sim/lazy-uniform-random.h"
#include "switch-stages.h"

#include "ns3/nstime.h"

#include <unordered_map>

namespace ns3
{

/**
 * \ingroup fabric-switch-pipeline
 * \brief CONGA (Alizadeh et al., "CONGA: Distributed Congestion-Aware Load Balancing for
 * Datacenters", SIGCOMM 2014): leaf switches choose, per flowlet, the uplink whose path to the
 * destination leaf is least congested, from congestion measured along the paths and fed back.
 *
 * - Every port has a DRE (discounting rate estimator): a register X that grows by the bytes the
 *   port sends and shrinks to X·(1 − α) every T_dre; its congestion metric is
 *   X / (C·τ), τ = T_dre / α, quantized to 3 bits (0..7).
 * - A frame entering the fabric at a leaf carries, in its IPv4 Identification field (CongaField;
 *   no extra wire bytes: fabric frames are never fragmented), the uplink it left by (LBTag) and
 *   CE = that uplink's metric; every later switch raises CE to its egress port's metric.
 * - The destination leaf stores CE in its congestion-from-leaf table (source leaf, LBTag), and
 *   piggybacks one entry of the table for leaf L, in turn, on every frame it sends into the
 *   fabric toward L (FB_LBTag, FB_Metric); L's leaf stores it in its congestion-to-leaf table.
 * - A new flowlet (a gap above FlowletGap) to a host on leaf L takes the uplink minimizing
 *   max(local DRE metric, congestion-to-leaf[L][uplink]); ties are broken at random. Switches
 *   without hosts (spines) hash as ECMP.
 *
 * Not modelled: aging of the congestion-to-leaf entries (CONGA resets stale entries to 0 after
 * a while), and feedback for leaves that send this leaf nothing.
 *
 * | attribute | default | source |
 * |---|---|---|
 * | FlowletGap | 50 us | CONGA uses 500 us for TCP; scaled to RDMA round trips as for LetFlow |
 * | DreAlpha | 0.1 | CONGA's DRE (α) |
 * | DrePeriod | 10 us | T_dre; τ = T_dre/α = 100 us spans a few RDMA round trips (CONGA's TCP
 * timescale is longer) |
 */
/// Uplinks a CONGA leaf can name: the LBTag has 4 bits (CongaField).
constexpr uint32_t kCongaMaxUplinks = 16;

class CongaLoadBalancer : public SwitchLoadBalancer
{
  public:
    static TypeId GetTypeId();
    CongaLoadBalancer();

    void Install(const FabricSwitch& sw) override;
    uint16_t SelectPort(const FrameInfo& info, const std::vector<uint16_t>& group) override;
    Ptr<EgressStage> CreateCompanionStage() override;
    int64_t GetStreamCount() const override;
    int64_t AssignStreams(int64_t stream) override;

    /// A frame of \p bytes leaves \p port (its DRE grows).
    void CountSent(uint16_t port, uint32_t bytes);
    /// The 3-bit congestion metric of \p port now.
    uint8_t Metric(uint16_t port);

    /// Congestion-to-leaf: what \p leaf reported for the path through this leaf's uplink
    /// \p uplink (0 until reported).
    uint8_t GetCongestionToLeaf(uint32_t leaf, uint32_t uplink) const;
    void SetCongestionToLeaf(uint32_t leaf, uint32_t uplink, uint8_t metric);
    /// Congestion-from-leaf: CE of the last frame from \p leaf that left it by its \p uplink.
    void SetCongestionFromLeaf(uint32_t leaf, uint32_t uplink, uint8_t metric);
    /// The next entry of the congestion-from-leaf table of \p leaf to feed back (in turn);
    /// false when nothing is known about that leaf.
    bool NextFeedback(uint32_t leaf, uint32_t* uplink, uint8_t* metric);

    /// Index of \p port among the switch's ports toward switches (its LBTag); -1 for others.
    int UplinkIndex(uint16_t port) const
    {
        return m_uplinkIndex[port];
    }

    bool IsLeaf() const
    {
        return m_isLeaf;
    }

    const FabricSwitch& GetSwitch() const
    {
        return *m_switch;
    }

  private:
    struct Dre
    {
        double bytes = 0;
        int64_t periodsSeen = 0; ///< DRE periods elapsed at the last update
    };

    struct LeafTable
    {
        std::vector<uint8_t> metric; ///< by uplink (LBTag)
        uint32_t nextFeedback = 0;
    };

    /// Applies the decays due since the last update of \p d.
    void Decay(Dre& d);

    const FabricSwitch* m_switch = nullptr;
    Time m_flowletGap;
    double m_alpha;
    Time m_drePeriod;
    bool m_isLeaf = false;
    std::vector<int> m_uplinkIndex;
    uint32_t m_uplinks = 0;
    std::vector<Dre> m_dre;          ///< by port
    std::vector<double> m_fullBytes; ///< by port: C·τ, the DRE value of a fully used port
    std::unordered_map<uint32_t, LeafTable> m_toLeaf;
    std::unordered_map<uint32_t, LeafTable> m_fromLeaf;
    FlowletTable m_flowlets;
    LazyUniformRandom m_random;
    std::vector<uint16_t> m_ties; ///< scratch
};

} // namespace ns3

#endif
