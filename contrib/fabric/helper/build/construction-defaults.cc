#include "build/construction-defaults.h"

#include "ns3/object-base.h"

#include <cstdlib>

namespace ns3
{

void
SetConstructionDefaults(ObjectFactory& factory)
{
    const char* overrides = std::getenv("NS_ATTRIBUTE_DEFAULT");
    if (overrides != nullptr && *overrides != '\0')
    {
        return;
    }
    // ConstructSelf's walk: the type, then each parent up to ObjectBase.
    for (TypeId tid = factory.GetTypeId(); tid != ObjectBase::GetTypeId(); tid = tid.GetParent())
    {
        for (uint32_t i = 0; i < tid.GetAttributeN(); ++i)
        {
            const TypeId::AttributeInformation& info = tid.GetAttribute(i);
            // A value ConstructSelf would not take (an attribute set only after construction,
            // or an initial value its checker refuses, which ConstructSelf tolerates) stays out.
            if ((info.flags & TypeId::ATTR_CONSTRUCT) &&
                info.checker->CreateValidValue(*info.initialValue))
            {
                factory.Set(info.name, *info.initialValue);
            }
        }
    }
}

} // namespace ns3
