#ifndef FABRIC_TRIM_STAGE_H
#define FABRIC_TRIM_STAGE_H

#include "switch-stages.h"

#include "ns3/queue-size.h"

namespace ns3
{

/**
 * \ingroup fabric-switch-pipeline
 * \brief Packet trimming (NDP, Handley et al., SIGCOMM 2017; Ultra Ethernet): a data frame the
 * buffer would drop, or whose egress queue would exceed the threshold, loses its payload; its
 * headers go on at the trim priority, marked trimmed in the DSCP, so the receiver asks for
 * exactly that packet again. Configured from FabricSwitch's Trim* attributes (switch.trim.*);
 * the switch counts and traces what it cut (Trim, and Drop with reason 5).
 */
class TrimStage : public EgressStage
{
  public:
    static TypeId GetTypeId();

    /// \p threshold: the egress queue depth (this frame included) above which a data frame is
    /// trimmed, 0 B for only the frames the buffer would drop; \p priority: the priority a
    /// trimmed header leaves by.
    void Configure(QueueSize threshold, uint8_t priority);

    bool RunsOnAdmission() const override
    {
        return true;
    }

    StageVerdict OnAdmission(const FabricNetDevice& out,
                             WireFrame& frame,
                             bool bufferFull) override;

  private:
    uint64_t m_threshold = 0;
    uint8_t m_priority = 0;
};

} // namespace ns3

#endif
