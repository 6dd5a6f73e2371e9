#include "port-faults.h"

#include "wire/pfc-pause-header.h"

namespace ns3
{

bool
PortFaults::LostUnlessPfc(const FrameRef& frame)
{
    uint8_t type[14];
    frame->CopyData(type, 14);
    bool lost = ((type[12] << 8) | type[13]) != PfcPauseHeader::kEtherType;
    m_lostFrames += lost ? 1 : 0;
    return lost;
}

} // namespace ns3
