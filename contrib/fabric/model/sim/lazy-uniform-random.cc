#include "lazy-uniform-random.h"

#include "ns3/integer.h"
#include "ns3/object-factory.h"

namespace ns3
{

void
LazyUniformRandom::SetStream(int64_t stream)
{
    m_stream = stream;
    m_variable = nullptr;
}

void
LazyUniformRandom::Make()
{
    // The stream as a construction attribute: one RngStream, not one for the default (an
    // automatic stream number) and another for SetStream.
    m_variable =
        CreateObjectWithAttributes<UniformRandomVariable>("Stream", IntegerValue(m_stream));
}

} // namespace ns3
