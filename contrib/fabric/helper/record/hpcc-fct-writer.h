#ifndef FABRIC_HPCC_FCT_WRITER_H
#define FABRIC_HPCC_FCT_WRITER_H

#include "build/fabric-builder.h"
#include "config/hpcc-pair-paths.h"
#include "config/scenario-config.h"

#include <fstream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief fct.txt of the HPCC-family simulators: one line per flow as it finishes.
 *
 * HPCC and ns3-datacenter (alibaba-edu/High-Precision-Congestion-Control
 * simulation/scratch/third.cc:169; inet-tub/ns3-datacenter
 * simulator/ns-3.39/examples/PowerTCP/powertcp-evaluation-burst.cc:183):
 *
 *     "%08x %08x %u %u %lu %lu %lu %lu"  sip dip sport dport size start_ns fct_ns standalone_ns
 *
 * sip/dip are node_id_to_ip(id) = 0x0b000001 + (id / 256) * 0x10000 + (id % 256) * 0x100
 * (third.cc:155-157); sport counts from 10000 per (src, dst) pair in flow order (third.cc:137,
 * 988); dport is flow.txt's dport column (TraceConfig::Hpcc::dports; 100 without one, the value
 * HPCC's traffic_gen.py writes). ConWeave (conweave-project/conweave-ns3
 * scratch/network-load-balance.cc:484-487):
 *
 *     "%u %u %u %u %lu %lu %lu %lu"       src_id dst_id sport dport size start_ns fct_ns
 * standalone_ns
 *
 * sport counts from 10000 per source host, dport from 100 per destination host, in flow order
 * (network-load-balance.cc:224-229, 1726-1727). start_ns and fct_ns are flows.csv's start_ns and
 * fct_ns; standalone_ns is config/hpcc-pair-paths.h (ConWeave's base RTT is searched from the
 * larger node id of the pair, its rates from the destination: network-load-balance.cc:1462-1472).
 */
class HpccFctWriter
{
  public:
    HpccFctWriter(const FabricNetwork* net, const TraceConfig::Hpcc& config, std::string path);
    /// Listens for finished flows.
    void Start();
    /// Renames the file into place.
    void Finish();

  private:
    void FlowFinished(uint32_t id);
    /// The reference's ports of every flow up to \p id, assigned in flow order.
    void AssignPorts(uint32_t id);
    uint32_t IdOf(uint32_t host) const;

    const FabricNetwork* m_net;
    const TraceConfig::Hpcc& m_config;
    std::string m_path;
    std::ofstream m_out;
    HpccPairTable m_pairs;
    std::vector<uint16_t> m_sport;
    std::vector<uint16_t> m_dport;
    std::vector<std::vector<uint16_t>> m_nextSport; ///< hpcc: [src][dst]; conweave: [src][0]
    std::vector<uint16_t> m_nextDport;              ///< conweave: per destination host
};

} // namespace ns3

#endif
