#ifndef FABRIC_VERSION_H
#define FABRIC_VERSION_H

namespace ns3
{

/// Release of ns3-fabric ("0.1.0").
const char* FabricVersion();
/// Git revision the build was configured from ("unknown" outside a checkout).
const char* FabricGitRevision();

} // namespace ns3

#endif
