#include "lazy-uniform-random.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/object-factory.h"
#include "ns3/rng-seed-manager.h"

namespace ns3
{
namespace
{

/// The current default (initial value, as Config::SetDefault leaves it) of an attribute of
/// UniformRandomVariable or its parent.
template <typename Value>
auto
UniformDefault(const std::string& name)
{
    TypeId::AttributeInformation info;
    UniformRandomVariable::GetTypeId().LookupAttributeByName(name, &info);
    return DynamicCast<const Value>(info.initialValue)->Get();
}

} // namespace

void
LazyUniformRandom::SetStream(int64_t stream)
{
    m_stream = stream;
    Dispose();
}

void
LazyUniformRandom::Dispose()
{
    m_rng.reset();
    m_automatic = nullptr;
}

void
LazyUniformRandom::MakeStream()
{
    m_min = UniformDefault<DoubleValue>("Min");
    m_max = UniformDefault<DoubleValue>("Max");
    m_antithetic = UniformDefault<BooleanValue>("Antithetic");
    if (m_stream == -1)
    {
        m_automatic = CreateObject<UniformRandomVariable>();
        return;
    }
    // RandomVariableStream::SetStream: the last 2^63 streams are the named ones.
    const uint64_t stream = (uint64_t{1} << 63) + static_cast<uint64_t>(m_stream);
    m_rng.emplace(RngSeedManager::GetSeed(), stream, RngSeedManager::GetRun());
}

} // namespace ns3
