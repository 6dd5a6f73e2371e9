#ifndef FABRIC_CONSTRUCTION_DEFAULTS_H
#define FABRIC_CONSTRUCTION_DEFAULTS_H

#include "ns3/object-factory.h"

namespace ns3
{

/**
 * \brief Puts into \p factory, for every attribute of its type and of the type's parents that is
 * set at construction, the attribute's current default (its initial value, as
 * Config::SetDefault left it). Call it before the factory's own Set calls, which then replace
 * the defaults they name, and after the last Config::SetDefault that should reach the objects:
 * the factory holds the defaults of the time of the call.
 *
 * The objects the factory makes get the very values they would get without it. What changes is
 * how ns-3 finds them: ObjectBase::ConstructSelf looks each attribute up in the factory's list
 * first, and only for one missing there builds the attribute's full name
 * ("ns3::Type::Attribute") to look for an NS_ATTRIBUTE_DEFAULT override before taking the
 * initial value. For the 512 devices and 128 NICs of a 128-host fabric those names were 9 M
 * instructions (bench/PROFILE.md, round 7). When NS_ATTRIBUTE_DEFAULT is set, this does nothing,
 * so that ns-3 applies the override as usual.
 */
void SetConstructionDefaults(ObjectFactory& factory);

} // namespace ns3

#endif
