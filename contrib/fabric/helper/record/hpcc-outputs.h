#ifndef FABRIC_HPCC_OUTPUTS_H
#define FABRIC_HPCC_OUTPUTS_H

#include "build/fabric-builder.h"
#include "config/scenario-config.h"
#include "record/hpcc-fct-writer.h"
#include "record/hpcc-pfc-writer.h"
#include "record/hpcc-qlen-monitor.h"

#include <memory>
#include <string>

namespace ns3
{

/**
 * \brief The output files of the HPCC-family simulators (trace.hpcc: fct.txt, pfc.txt,
 * qlen.txt), so that their analysis scripts read a run unchanged: the ones the configuration
 * names, at their paths under the run directory (directories created). Node ids are
 * topology.txt's with an HPCC topology, else the spec index.
 */
class HpccOutputs
{
  public:
    HpccOutputs(const FabricNetwork* net, const TraceConfig::Hpcc& config, const std::string& dir);
    void Start();
    /// A PFC frame arrived at (\p node, \p port).
    void PfcReceived(uint32_t node, uint32_t port, uint16_t quanta);
    /// Writes what is left and renames every file into place.
    void Finish();

  private:
    std::unique_ptr<HpccFctWriter> m_fct;
    std::unique_ptr<HpccPfcWriter> m_pfc;
    std::unique_ptr<HpccQlenMonitor> m_qlen;
};

} // namespace ns3

#endif
