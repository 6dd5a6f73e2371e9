#ifndef FABRIC_TESTS_CC_UNIT_TEST_H
#define FABRIC_TESTS_CC_UNIT_TEST_H

// Unit tests of one RoCE congestion control driven by hand-made feedback (no fabric): a clean
// set of attribute defaults and an empty simulator around each test, and the sender built from
// a configured factory and started.

#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

namespace ns3
{
namespace test
{

/// Resets ns-3 attribute defaults around each test and destroys the simulator after it (the
/// test may have scheduled feedback).
class CcUnitTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        Config::Reset();
    }

    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }

    /// The congestion control \p factory describes, started on a NIC of \p lineRate.
    template <typename T>
    static Ptr<T> StartCc(const ObjectFactory& factory, DataRate lineRate = DataRate("400Gbps"))
    {
        Ptr<T> cc = factory.Create<T>();
        cc->Start(lineRate);
        return cc;
    }
};

} // namespace test
} // namespace ns3

#endif
