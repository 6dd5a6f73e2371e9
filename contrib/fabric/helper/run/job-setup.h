#ifndef FABRIC_JOB_SETUP_H
#define FABRIC_JOB_SETUP_H

#include "build/fabric-builder.h"
#include "distributed/partitioned-run.h"
#include "host/host-transport.h"
#include "job/job-runner.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/// Creates the runner for \p jobs (none: nullptr) and starts it; it stops the simulation when
/// every job has run every step (distributed runs, \p parts: by the ranks' end-of-run rule).
Ptr<JobRunner> SetupJobs(const std::vector<JobSpec>& jobs,
                         FabricNetwork& net,
                         const std::vector<Ptr<HostTransport>>& nics,
                         uint64_t seed,
                         PartitionedRun* parts = nullptr,
                         CollectiveEngine::LaunchScheduledCallback launchScheduled = {});

/// summary.json "jobs" of a finished runner: per job and step the step time, the exposed
/// communication and the critical path.
nlohmann::json JobSummary(const JobRunner& runner);

/// Writes job.csv and adds "jobs" to \p summary; returns "" when every job finished and every
/// collective left the exact sum, else what went wrong.
std::string FinishJobs(const JobRunner& runner, const std::string& outDir, nlohmann::json& summary);

} // namespace ns3

#endif
