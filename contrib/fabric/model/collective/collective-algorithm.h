#ifndef FABRIC_COLLECTIVE_ALGORITHM_H
#define FABRIC_COLLECTIVE_ALGORITHM_H

#include "collective-plan.h"

#include "ns3/object.h"

namespace ns3
{

/**
 * \brief An AllReduce algorithm: builds the dependency graph of transfers for a job (strategy
 * object, chosen by type name like TcpCongestionOps). Every algorithm leaves every rank with the
 * sum of all ranks' gradients. Byte counts per rank (M bytes, p ranks, S servers, G GPUs each):
 *  - RingAllReduce: 2(p-1) transfers of M/p per rank, 2(p-1)/p*M sent per rank;
 *  - HierarchicalAllReduce: NVLink ReduceScatter (G-1 sends of M/G), inter-server ring
 *    AllReduce of the rank's M/G chunk with its partners (2(S-1)/S*M/G sent per NIC), NVLink
 *    AllGather (G-1 sends of M/G);
 *  - DirectAllReduce: every rank sends chunk j to its owner j (incast), owners return it:
 *    2(p-1)/p*M per rank;
 *  - SharpAllReduce: every rank sends its M bytes once to its aggregation tree and receives the
 *    reduced M bytes once.
 */
class CollectiveAlgorithm : public Object
{
  public:
    static TypeId GetTypeId();
    virtual void Build(CollectivePlan& plan) const = 0;
};

/// Ring over all ranks: Order "flat" (0,1,...,p-1) or "interleaved" (server-minor:
/// 0,8,1,9,... for two servers of 8).
class RingAllReduce : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    void Build(CollectivePlan& plan) const override;
    static std::vector<uint32_t> RingOrder(const CollectiveJob& job, const std::string& order);

  private:
    std::string m_order = "flat";
};

/// ReduceScatter over NVLink, AllReduce between partner ranks, AllGather over NVLink. Partner of
/// local GPU g of server 0 on server s is local GPU (g + PairingOffset*s) mod G: offset 0 pairs
/// i with i+8 (same rail), 1 pairs i with i+9 (7 with 8), 4 pairs i with ((i+4) mod 8)+8.
class HierarchicalAllReduce : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    void Build(CollectivePlan& plan) const override;

  private:
    uint32_t m_pairingOffset = 0;
    bool m_interOnly = false;
};

/// All-to-one per chunk owner (the incast of docs/models.md#incast-fill), then owner-to-all.
class DirectAllReduce : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    void Build(CollectivePlan& plan) const override;
};

/// In-network: each rank sends each of its Chunks once to the switch tree (SharpAggregator)
/// and receives the reduced chunk once. With NvlinkStages, first a ReduceScatter over NVLink,
/// then one SHARP reduction per rail (the M/G shard of the ranks of GPU g, tree = rail leaf g),
/// then an AllGather over NVLink (NVLS-style); otherwise one tree over all ranks.
class SharpAllReduce : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    void Build(CollectivePlan& plan) const override;

  private:
    uint32_t m_chunks = 1;
    bool m_nvlinkStages = false;
};

} // namespace ns3

#endif
