#ifndef FABRIC_SHARP_AGGREGATOR_H
#define FABRIC_SHARP_AGGREGATOR_H

#include "link/fabric-net-device.h"
#include "switch-stages.h"
#include "wire/sharp-header.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/queue-size.h"

#include <cstdint>
#include <deque>
#include <map>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * \brief SHARP-style in-network reduction engine of one FabricSwitch.
 *
 * Aggregation groups are trees of switches configured by the helper (AddGroup): each switch of
 * a group knows its children (ports toward member NICs or child switches) and its parent port
 * (none at the root). Frames are UDP 4793 with a SharpHeader (see wire/sharp-header.h); the
 * aggregator is a receive hook of its switch (FabricSwitch::AddReceiveHook), which hands it
 * every such frame instead of forwarding it, so reduction traffic bypasses the shared-buffer
 * MMU and uses this engine's own buffer.
 *
 * Per (group, reduction, packet) a slot holds the running sum (the real float32 values carried
 * in the frames are added) and the packet's payload bytes count against BufferSize from the
 * first contribution until every child has acknowledged the result. Each contribution is
 * processed at AggregationRate (frame bytes / rate, one at a time: the switch's ALU), so the
 * switch can become the bottleneck. When every child has contributed, a non-root switch sends
 * its partial sum up (CONTRIB), the root turns it into the RESULT and multicasts it to its
 * children, and every switch below multicasts the RESULT it receives to its own children.
 *
 * Buffer full: a contribution that needs a new slot is held (lossless) in an input FIFO until a
 * slot is released; contributions for existing slots are never held (they need no space, and
 * holding them could deadlock). The FIFO is not bounded (its peak is reported); it stands for
 * the backpressure a real switch applies on the reduction's lossless class.
 *
 * Reliability (a frame lost on a link): members retransmit the contributions of packets whose
 * RESULT has not arrived RetransmitTimeout after their last progress (SharpService). A switch
 * keeps every slot until all its children have ACKed the RESULT; a duplicate contribution from
 * a child that is already counted makes it resend the RESULT to that child (result known) or
 * its partial sum to its parent (sent up, no result yet), so any lost CONTRIB, RESULT or ACK is
 * recovered end to end and every member still sends each chunk once when nothing is lost.
 */
class SharpAggregator : public Object, public SwitchReceiveHook
{
  public:
    static TypeId GetTypeId();
    SharpAggregator();

    /// The switch's ports, by index (its device list).
    void SetPorts(std::vector<Ptr<FabricNetDevice>> ports)
    {
        m_ports = std::move(ports);
    }

    /// This switch's place in the tree of \p group: children by port (with the member host
    /// index, or -1 for a child switch) and the parent port (-1 at the root).
    void AddGroup(uint16_t group,
                  const std::vector<uint32_t>& childPorts,
                  const std::vector<int32_t>& childHosts,
                  int32_t parentPort);
    /// A SHARP frame arrived on \p device.
    void Receive(Ptr<FabricNetDevice> device, Ptr<Packet> frame);

    // SwitchReceiveHook: UDP 4793 frames.
    bool Claims(const FrameInfo& info) const override
    {
        return info.dstPort == kSharpUdpPort;
    }

    void Receive(FabricNetDevice* port, WireFrame& frame) override
    {
        Receive(Ptr<FabricNetDevice>(port), frame.frame.Get());
    }

    uint64_t GetPeakBufferBytes() const
    {
        return m_peakUsed;
    }

    uint64_t GetContributions() const
    {
        return m_contributions;
    }

    uint64_t GetHeldFrames() const
    {
        return m_heldFrames;
    }

    uint64_t GetPeakHeldFrames() const
    {
        return m_peakHeld;
    }

    uint64_t GetResultsSent() const
    {
        return m_resultsSent;
    }

    uint64_t GetDuplicates() const
    {
        return m_duplicates;
    }

  protected:
    void DoDispose() override;

  private:
    struct Group
    {
        std::vector<uint32_t> children;
        std::vector<int32_t> childHosts;
        std::map<uint32_t, uint32_t> childOfPort;
        int32_t parent = -1;
    };

    struct Slot
    {
        std::vector<float> sum;
        uint32_t payloadBytes = 0;
        std::vector<uint8_t> got;
        std::vector<uint8_t> acked;
        uint32_t count = 0;
        uint32_t ackCount = 0;
        bool complete = false; ///< every child counted (and processed)
        bool haveResult = false;
        std::vector<float> result;
    };

    typedef std::tuple<uint16_t, uint32_t, uint32_t> Key;

    void Process(uint32_t port, SharpHeader h, uint32_t payloadBytes);
    void Contribution(uint32_t port, SharpHeader h, uint32_t payloadBytes);
    void SendUp(const Key& key, const Slot& slot);
    void SendResult(const Key& key, const Slot& slot, uint32_t child);
    void Send(uint32_t port, const SharpHeader& h, uint32_t payloadBytes, int32_t dstHost);
    void Release(const Key& key);

    QueueSize m_bufferSize;
    DataRate m_rate;
    uint8_t m_priority = 3;
    std::vector<Ptr<FabricNetDevice>> m_ports;
    std::map<uint16_t, Group> m_groups;
    std::map<Key, Slot> m_slots;
    std::deque<std::tuple<uint32_t, SharpHeader, uint32_t>> m_held;
    uint64_t m_used = 0;
    uint64_t m_peakUsed = 0;
    Time m_busyUntil;
    uint64_t m_contributions = 0;
    uint64_t m_heldFrames = 0;
    uint64_t m_peakHeld = 0;
    uint64_t m_resultsSent = 0;
    uint64_t m_duplicates = 0;
};

} // namespace ns3

#endif
