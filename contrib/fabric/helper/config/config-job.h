#ifndef FABRIC_CONFIG_JOB_H
#define FABRIC_CONFIG_JOB_H

#include "config/topology-spec.h"
#include "config/yaml-fields.h"
#include "job/job-spec.h"

#include <vector>

namespace ns3
{

/**
 * \brief `workload: {type: job, jobs: [...]}` (docs/models.md#job-timelines):
 *
 *   jobs:
 *     - name: train
 *       hosts: [0, 1, 2, 3]          # host of each rank (or ranks: N from first_host: H)
 *       layout: {tp: 1, ep: 1, dp: 4, pp: 1}   # product = ranks; default dp = ranks
 *       steps: 2
 *       start: 0ms
 *       skew: [{rank: 3, at: 2ms}]   # the rank begins each step this late
 *       phases:
 *         - {name: fwd, type: compute, duration: 10ms}
 *         - {name: grads, type: buckets, count: 4, compute: 2ms, bytes: 16MiB, group: dp,
 *            algorithm: ring, launch_cost: 0.83us, after: [fwd]}
 *         - {name: send, type: p2p, group: pp, from: 0, to: 1, bytes: 1MiB, after: [fwd]}
 *         - {name: opt, type: update, duration: 2ms, after: [grads]}
 *         - {name: fwd1, type: compute, duration: 1ms, stages: [1], after: [send]}
 *
 * A `buckets` entry stands for `count` compute phases name.c0.. (each `compute` long, one after
 * the other) and `count` collectives name.ar0.. (ar k after c k, `bytes` each), so the
 * collective of bucket k overlaps the compute of bucket k+1; naming it in `after` names all of
 * them. Throws ConfigError (file, line, key) for bad input.
 */
std::vector<JobSpec> ParseJobs(YamlFields& workload,
                               const TopologySpec& topology,
                               const std::string& transport);

} // namespace ns3

#endif
