#ifndef FABRIC_INT_STAMP_STAGE_H
#define FABRIC_INT_STAMP_STAGE_H

#include "switch-stages.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup fabric-switch-pipeline
 * \brief In-band network telemetry: stamps the egress port's state into the INT stack of every
 * data packet that carries one (HPCC's INT, Li et al., SIGCOMM 2019, §4.1; wire layout in
 * wire/int-header.h and docs/models.md#int-wire-layout).
 *
 * On dequeue, as the packet leaves for the wire, the port's byte counter grows by the frame
 * and the next hop record gets the link rate, the time, the bytes the port has transmitted
 * (this frame included) and the bytes still queued on the port (every priority), as HPCC's
 * switches do. Which frames carry a stack, and where, the transport's view says
 * (TelemetryOffset, link/transport-view.h): the stage knows no transport. The frame's size does
 * not change (the sender reserved every slot), so the MMU and the link see the same bytes.
 *
 * Selected with ns3::FabricSwitch::EgressStages=ns3::IntStampStage (the scenario builder does
 * so when a host's congestion control reads INT: cc hpcc or powertcp). Every port's rate must
 * be one the record can name (IntRateCode); Install throws SwitchStageError otherwise.
 */
class IntStampStage : public EgressStage
{
  public:
    static TypeId GetTypeId();

    void Install(const FabricSwitch& sw) override;

    bool RunsOnDequeue() const override
    {
        return true;
    }

    StageVerdict OnDequeue(FabricNetDevice& port, QueuedFrame& item) override;

    /// Bytes port \p port has sent since the simulation began (what records carry, unrounded).
    uint64_t GetTxBytes(uint32_t port) const
    {
        return m_txBytes[port];
    }

    /// Data packets stamped so far.
    uint64_t GetStampedFrames() const
    {
        return m_stamped;
    }

  private:
    std::vector<uint64_t> m_txBytes;  ///< by port
    std::vector<uint8_t> m_rateCodes; ///< by port: the port's rate as a record names it
    uint64_t m_stamped = 0;
};

} // namespace ns3

#endif
