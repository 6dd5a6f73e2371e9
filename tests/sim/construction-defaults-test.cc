// SetConstructionDefaults must not change what an object is made with: a device, a switch and NICs
// made by a factory holding every default carry the same value in every attribute as ones made
// by a plain factory, also after Config::SetDefault changed a default, and a value the factory
// sets itself still wins over the default.

#include "build/construction-defaults.h"
#include "link/fabric-net-device.h"
#include "ub/ub-nic.h"

#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/object-factory.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>
#include <string>

namespace ns3
{
namespace test
{
namespace
{

/// Every attribute of \p object that can be read, as ns-3's text ("Name=value" per line).
std::string
AttributeText(const Ptr<Object>& object)
{
    std::string text;
    for (TypeId tid = object->GetInstanceTypeId(); tid != ObjectBase::GetTypeId();
         tid = tid.GetParent())
    {
        for (uint32_t i = 0; i < tid.GetAttributeN(); ++i)
        {
            TypeId::AttributeInformation info = tid.GetAttribute(i);
            if (!(info.flags & TypeId::ATTR_GET) || !info.accessor->HasGetter())
            {
                continue;
            }
            Ptr<AttributeValue> value = info.checker->Create();
            object->GetAttribute(info.name, *value);
            text += info.name + "=" + value->SerializeToString(info.checker) + "\n";
        }
    }
    return text;
}

void
ExpectSameAttributes(const std::string& type)
{
    ObjectFactory plain(type);
    ObjectFactory filled(type);
    SetConstructionDefaults(filled);
    Ptr<Object> a = plain.Create<Object>();
    Ptr<Object> b = filled.Create<Object>();
    const std::string text = AttributeText(a);
    EXPECT_GT(text.size(), 100u) << "the type has attributes to compare";
    EXPECT_EQ(text, AttributeText(b));
}

TEST(ConstructionDefaults, ObjectsGetTheValuesOfAPlainFactory)
{
    ExpectSameAttributes("ns3::FabricNetDevice");
    ExpectSameAttributes("ns3::UbNic");
    ExpectSameAttributes("ns3::RdmaNic");
    ExpectSameAttributes("ns3::FabricSwitch");
}

TEST(ConstructionDefaults, DefaultsAreTakenWhenTheFactoryIsFilled)
{
    Config::SetDefault("ns3::FabricNetDevice::DataRate", StringValue("25Gbps"));
    ObjectFactory filled("ns3::FabricNetDevice");
    SetConstructionDefaults(filled);
    Config::SetDefault("ns3::FabricNetDevice::DataRate", StringValue("100Gbps"));
    DataRateValue rate;
    filled.Create<FabricNetDevice>()->GetAttribute("DataRate", rate);
    EXPECT_EQ(rate.Get(), DataRate("25Gbps"));
    // The factory's own Set replaces the default it holds.
    filled.Set("DataRate", DataRateValue(DataRate("400Gbps")));
    filled.Create<FabricNetDevice>()->GetAttribute("DataRate", rate);
    EXPECT_EQ(rate.Get(), DataRate("400Gbps"));
    ExpectSameAttributes("ns3::FabricNetDevice"); // 100 Gb/s in both
    Config::Reset();
}

} // namespace
} // namespace test
} // namespace ns3
