#ifndef FABRIC_SHARP_SERVICE_H
#define FABRIC_SHARP_SERVICE_H

#include "collective-engine.h"
#include "link/fabric-net-device.h"
#include "wire/sharp-header.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <map>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \brief The member (NIC) side of SHARP-style reductions, for every rank of a job.
 *
 * Send() cuts the rank's contribution (bytes, and the float32 values of that range) into
 * PacketPayload-byte CONTRIB frames (UDP 4793, wire/sharp-header.h) carrying the real values,
 * paced at the NIC's line rate on the rank's NIC port, each sent once. RESULT frames arriving at
 * the NIC (seen on its port) fill in the reduced values; each is acknowledged with an ACK frame
 * so the switches can release the slot. When every packet's RESULT is in, the engine's callback
 * gets the reduced values. Reliability: RetransmitTimeout after the last progress, the member
 * resends the CONTRIB of every packet whose RESULT is missing (the switches answer duplicates,
 * see SharpAggregator). After RetryLimit such rounds in a row without a single new RESULT the
 * member gives the reduction up and reports it failed, as a reliable transport's retry counter
 * does (an InfiniBand RC QP errors out after retry_cnt, at most 7): an aggregation tree that lost
 * a member or a tree link cannot finish, and is not rebuilt while the operation runs. Values are
 * split over packets by the same floor map as byte ranges; when a packet's values need more than
 * its payload the frame grows (keep ValueElements <= M/4).
 */
class SharpService : public CollectiveSharpService
{
  public:
    static TypeId GetTypeId();
    SharpService();

    void AddMember(uint32_t rank, uint32_t host, Ptr<FabricNetDevice> nic);
    void Send(uint16_t group,
              uint32_t reductionId,
              uint32_t rank,
              uint64_t bytes,
              const std::vector<float>& values,
              DoneCallback done,
              FailedCallback failed) override;

    uint64_t GetContribFramesSent(uint32_t rank) const;
    uint64_t GetContribPayloadSent(uint32_t rank) const;

    uint64_t GetRetransmittedFrames() const
    {
        return m_retransmitted;
    }

    /// Reductions given up by a member after RetryLimit rounds without progress.
    uint64_t GetFailedReductions() const
    {
        return m_failed;
    }

    /// When the last reduction was given up (zero if none was).
    Time GetLastFailureTime() const
    {
        return m_lastFailure;
    }

  protected:
    void DoDispose() override;

  private:
    typedef std::tuple<uint16_t, uint32_t, uint32_t> Key; ///< group, reduction, rank

    struct Op
    {
        uint64_t bytes = 0;
        uint32_t packets = 0;
        std::vector<float> values;
        std::vector<float> result;
        std::vector<uint8_t> got;
        uint32_t remaining = 0;
        DoneCallback done;
        FailedCallback failed;
        uint32_t retries = 0; ///< timeout rounds since the last new RESULT
        EventId timer;
    };

    struct Member
    {
        uint32_t host = 0;
        Ptr<FabricNetDevice> nic;
        uint64_t frames = 0;
        uint64_t payload = 0;
        Time nextSend;
    };

    std::pair<uint32_t, uint32_t> PacketBytes(const Op& op, uint32_t i) const;
    std::pair<uint32_t, uint32_t> PacketValues(const Op& op, uint32_t i) const;
    void SendContrib(Key key, uint32_t packet, bool retransmission);
    void SendFrame(uint32_t rank, SharpHeader h, uint32_t payload);
    void Sniff(uint32_t rank, Ptr<const Packet> frame);
    void Timeout(Key key);

    uint32_t m_payload = 4096;
    Time m_timeout;
    uint32_t m_retryLimit = 7;
    uint8_t m_priority = 3;
    std::map<uint32_t, Member> m_members;
    std::map<Key, Op> m_ops;
    uint64_t m_retransmitted = 0;
    uint64_t m_failed = 0;
    Time m_lastFailure;
};

} // namespace ns3

#endif
