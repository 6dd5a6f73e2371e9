#ifndef FABRIC_NOW_H
#define FABRIC_NOW_H

#include "fabric-wheel-scheduler.h"

namespace ns3
{

/// The current simulation time, Simulator::Now()'s value; on the fabric's scheduler one load
/// (FabricWheelScheduler::Now), which the per-frame paths of devices, switches and NICs use.
inline Time
FabricNow()
{
    return FabricWheelScheduler::Now();
}

} // namespace ns3

#endif
