#ifndef FABRIC_HPCC_PFC_WRITER_H
#define FABRIC_HPCC_PFC_WRITER_H

#include "build/fabric-builder.h"
#include "config/scenario-config.h"

#include <fstream>
#include <string>

namespace ns3
{

/**
 * \brief pfc.txt of the HPCC-family simulators: one line per PFC frame a port receives
 * (alibaba-edu/High-Precision-Congestion-Control simulation/scratch/third.cc:178-180, connected
 * to every port's QbbPfc trace at 815-816, which fires on reception,
 * simulation/src/point-to-point/model/qbb-net-device.cc:373-380; conweave-project/conweave-ns3
 * scratch/network-load-balance.cc:501-505 is the same):
 *
 *     "%lu %u %u %u %u"   time_ns node_id node_type if_index type
 *
 * node_type is 1 for a switch, 0 for a host; if_index is the port number + 1 (device 0 of every
 * node there is the loopback, and ports are numbered in topology.txt's link order, as here);
 * type is 1 for a pause (a frame with a non-zero time), 0 for a resume.
 */
class HpccPfcWriter
{
  public:
    HpccPfcWriter(const FabricNetwork* net, const TraceConfig::Hpcc& config, std::string path);
    /// A PFC frame arrived at (\p node, \p port): \p quanta 0 is a resume.
    void Received(uint32_t node, uint32_t port, uint16_t quanta);
    /// Renames the file into place.
    void Finish();

  private:
    const FabricNetwork* m_net;
    const TraceConfig::Hpcc& m_config;
    std::string m_path;
    std::ofstream m_out;
};

} // namespace ns3

#endif
