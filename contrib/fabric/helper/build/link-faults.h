#ifndef LINK_FAULTS_H
#define LINK_FAULTS_H

#include "build/fabric-builder.h"
#include "config/scenario-config.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Applies a scenario's link events as they fall due and keeps their log for
 * link-events.csv.
 *
 * link_down / link_up go through FabricNetwork::SetLinkUp (routes recompute). A degrade keeps
 * the link up and its routes: it sets, on both ends, what the event names — the port rate
 * (FabricNetDevice::DataRate), the delay added to the cable (FabricChannel::AddedDelay), the
 * probability that an arriving frame is lost (FabricNetDevice::LossRate). A restore puts back
 * what the link had before its first degrade. In a distributed run every rank applies every
 * event to the devices it simulates; the log is the same on each.
 */
class LinkFaults
{
  public:
    explicit LinkFaults(FabricNetwork& net);

    /// Carries out \p ev now and logs it.
    void Apply(const LinkEvent& ev);

    /// link-events.csv: time_ns, link, a, b, action, rate_bps, added_delay_ns, error_rate (the
    /// link's state after the event; rate 0 while down).
    void WriteCsv(const std::string& path) const;

  private:
    /// What a link had when it was built, from the topology (both ends alike), so that every
    /// rank of a distributed run agrees whichever ends it simulates.
    struct Built
    {
        DataRate rate;
        double lossRate = 0;
    };

    /// The link's state as the log reports it.
    struct State
    {
        bool up = true;
        DataRate rate;
        Time addedDelay;
        double errorRate = 0;
    };

    struct Row
    {
        Time at;
        uint32_t link;
        LinkAction action;
        State state;
    };

    /// The devices of both ends (null where another rank simulates them) and the channel.
    void Ends(uint32_t link, Ptr<FabricNetDevice> dev[2], Ptr<FabricChannel>& channel) const;
    Built& BuiltOf(uint32_t link);
    State& StateOf(uint32_t link);

    FabricNetwork& m_net;
    std::map<uint32_t, Built> m_built;
    std::map<uint32_t, State> m_state;
    std::vector<Row> m_log;
};

} // namespace ns3

#endif
