#ifndef FABRIC_FRAME_REF_H
#define FABRIC_FRAME_REF_H

#include "ns3/packet.h"
#include "ns3/ptr.h"

namespace ns3
{

/**
 * \brief One reference to a frame, handed on by moving.
 *
 * ns-3.37's Ptr has no move constructor: each hand-over of a Ptr<Packet> (into an egress queue,
 * out of it, onto the cable, to the switch) increments and then decrements the reference count
 * inside the Packet. That write is a cache miss per hop on an object last touched microseconds
 * earlier, and it was the largest single cost of forwarding. A switch forwards a frame from its
 * parsed headers (FrameInfo) alone, so with queues and cables holding FrameRefs the Packet is
 * not touched between the NIC that built it and the one that receives it (unless a header is
 * rewritten, or a trace reads it).
 *
 * Copying still works and takes a real reference; Get() makes a Ptr<Packet> for code that
 * reads or changes the packet.
 */
class FrameRef
{
  public:
    FrameRef() = default;

    /// Takes a reference to \p packet (implicit, so that a Ptr<Packet> can be queued as is).
    FrameRef(const Ptr<Packet>& packet)
        : m_packet(PeekPointer(packet))
    {
        if (m_packet)
        {
            m_packet->Ref();
        }
    }

    FrameRef(FrameRef&& other) noexcept
        : m_packet(other.m_packet)
    {
        other.m_packet = nullptr;
    }

    FrameRef(const FrameRef& other)
        : m_packet(other.m_packet)
    {
        if (m_packet)
        {
            m_packet->Ref();
        }
    }

    FrameRef& operator=(FrameRef&& other) noexcept
    {
        if (this != &other)
        {
            Release();
            m_packet = other.m_packet;
            other.m_packet = nullptr;
        }
        return *this;
    }

    FrameRef& operator=(const FrameRef& other)
    {
        if (this != &other)
        {
            FrameRef copy(other);
            *this = std::move(copy);
        }
        return *this;
    }

    ~FrameRef()
    {
        if (m_packet) // most FrameRefs end moved-from: no call for them
        {
            Release();
        }
    }

    /// A counted pointer to the frame (touches the packet).
    Ptr<Packet> Get() const
    {
        return Ptr<Packet>(m_packet);
    }

    /// The frame, without taking a reference (null when empty).
    Packet* Peek() const
    {
        return m_packet;
    }

    Packet* operator->() const
    {
        return m_packet;
    }

    explicit operator bool() const
    {
        return m_packet != nullptr;
    }

  private:
    void Release()
    {
        if (m_packet)
        {
            m_packet->Unref();
            m_packet = nullptr;
        }
    }

    Packet* m_packet = nullptr;
};

} // namespace ns3

#endif
