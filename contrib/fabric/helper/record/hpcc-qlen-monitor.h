#ifndef FABRIC_HPCC_QLEN_MONITOR_H
#define FABRIC_HPCC_QLEN_MONITOR_H

#include "build/fabric-builder.h"
#include "config/scenario-config.h"

#include <array>
#include <fstream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief qlen.txt of the HPCC simulator: per switch port, how often its egress queue held each
 * kilobyte of depth (alibaba-edu/High-Precision-Congestion-Control
 * simulation/scratch/third.cc:182-221, monitor_buffer; inet-tub/ns3-datacenter
 * simulator/ns-3.39/examples/PowerTCP/powertcp-evaluation-burst.cc:197-236 is the same).
 *
 * The reference samples every switch port (the bytes queued at its egress, all priorities
 * together) at QLEN_MON_START and then every qlen_mon_interval (100 ns) while the sample was
 * taken before QLEN_MON_END, so the last sample is the first at or after QLEN_MON_END, and none
 * at or after the stop time. A sample of depth d bytes counts in bucket d / 1000. At every sample
 * whose time is a multiple of qlen_dump_interval (100 ms, third.cc:81) it writes the cumulative
 * histograms:
 *
 *     "time: %lu"                 the time in ns
 *     "%u %u %u %u ..."           node_id if_index count_0KB count_1KB ... (one line per port,
 *                                 by node id, then if_index = port + 1)
 *
 * Here the histograms follow the queues' changes instead of sampling (the same counts at any
 * rate): a sample at time t counts the depth just before whatever else happens at t. When the
 * run ends before the stop time (every flow done), the samples the reference would still take
 * until QLEN_MON_END see the queues as they are at the end, and their dumps are written at
 * Finish().
 */
class HpccQlenMonitor
{
  public:
    HpccQlenMonitor(const FabricNetwork* net, const TraceConfig::Hpcc& config, std::string path);
    void Start();
    /// Writes the dumps after the end of the run, renames the file into place.
    void Finish();

  private:
    struct Port
    {
        uint32_t nodeId;
        uint32_t ifIndex;
        uint32_t node;
        uint32_t port;
        std::array<uint64_t, kFabricPriorities> bytes{};
        uint64_t total = 0;
        uint64_t counted = 0; ///< samples already in the histogram
        std::vector<uint64_t> histogram;
    };

    /// Samples taken at or before \p ps (picoseconds).
    uint64_t SamplesUpTo(int64_t ps) const;
    void Count(Port& port, uint64_t samples);
    void Changed(uint32_t index, uint8_t priority, uint64_t bytes);
    /// The first sample at or after index \p from that dumps; m_samples if none.
    uint64_t NextDump(uint64_t from) const;
    void ScheduleDump();
    void Dump();
    void Write(uint64_t sample);

    const FabricNetwork* m_net;
    std::string m_path;
    std::ofstream m_out;
    int64_t m_startNs;
    int64_t m_intervalNs;
    int64_t m_dumpNs;
    uint64_t m_samples = 0;  ///< how many samples the reference takes
    uint64_t m_nextDump = 0; ///< index of the next sample that dumps
    std::vector<Port> m_ports;
};

} // namespace ns3

#endif
