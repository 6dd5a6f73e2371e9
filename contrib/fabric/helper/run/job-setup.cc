#include "run/job-setup.h"

#include "build/nic-port-binder.h"

#include "ns3/simulator.h"

namespace ns3
{

namespace
{

void
StopWhenJobsDone(Ptr<FlowTable> table)
{
    if (table->GetFinishedCount() == table->GetN())
    {
        Simulator::Stop();
    }
}

} // namespace

Ptr<JobRunner>
SetupJobs(const std::vector<JobSpec>& jobs,
          FabricNetwork& net,
          const std::vector<Ptr<HostTransport>>& nics,
          uint64_t seed,
          PartitionedRun* parts,
          CollectiveEngine::LaunchScheduledCallback launchScheduled)
{
    if (jobs.empty())
    {
        return nullptr;
    }
    Ptr<JobRunner> runner = CreateObject<JobRunner>();
    runner->Configure(net.GetFlowTable(), nics, seed);
    runner->SetPortBinder(Create<NicPortBinder>(net)->AsCallback());
    runner->SetLaunchScheduledCallback(launchScheduled);
    for (const JobSpec& job : jobs)
    {
        runner->AddJob(job);
    }
    if (parts)
    {
        parts->ConnectJobs(runner);
    }
    else
    {
        runner->SetDoneCallback(MakeBoundCallback(&StopWhenJobsDone, net.GetFlowTable()));
    }
    runner->Start();
    return runner;
}

nlohmann::json
JobSummary(const JobRunner& runner)
{
    nlohmann::json jobs = nlohmann::json::array();
    const auto& records = runner.Records();
    for (uint32_t j = 0; j < runner.Jobs().size(); ++j)
    {
        const JobSpec& job = runner.Jobs()[j];
        nlohmann::json steps = nlohmann::json::array();
        for (uint32_t s = 0; s < job.steps; ++s)
        {
            Time begin = runner.StepBegin(j, s);
            Time end = runner.StepEnd(j, s);
            std::vector<int64_t> exposed;
            int64_t worst = 0;
            for (uint32_t r = 0; r < job.Ranks(); ++r)
            {
                exposed.push_back(runner.ExposedCommunication(j, s, r).GetNanoSeconds());
                worst = std::max(worst, exposed.back());
            }
            nlohmann::json path = nlohmann::json::array();
            for (uint32_t id : runner.CriticalPath(j, s))
            {
                const JobRunner::Record& rec = records[id];
                const JobPhaseSpec& ph = job.phases[rec.phase];
                path.push_back({{"phase", ph.name},
                                {"kind", JobPhaseKindName(ph.kind)},
                                {"rank", rec.rank},
                                {"ready_ns", rec.ready.GetNanoSeconds()},
                                {"start_ns", rec.start.GetNanoSeconds()},
                                {"end_ns", rec.end.GetNanoSeconds()}});
            }
            steps.push_back({{"step", s},
                             {"begin_ns", begin.GetNanoSeconds()},
                             {"end_ns", end.GetNanoSeconds()},
                             {"step_time_ns", (end - begin).GetNanoSeconds()},
                             {"exposed_communication_ns", worst},
                             {"exposed_communication_ns_per_rank", exposed},
                             {"critical_path", path}});
        }
        nlohmann::json layout = {{"tp", job.tp}, {"ep", job.ep}, {"dp", job.dp}, {"pp", job.pp}};
        jobs.push_back({{"name", job.name},
                        {"ranks", job.Ranks()},
                        {"hosts", job.hostOfRank},
                        {"layout", layout},
                        {"steps", steps}});
    }
    return jobs;
}

std::string
FinishJobs(const JobRunner& runner, const std::string& outDir, nlohmann::json& summary)
{
    runner.WriteCsv(outDir + "/job.csv");
    std::string error;
    uint32_t checked = 0;
    for (const JobRunner::Instance& inst : runner.Instances())
    {
        if (inst.engine && inst.engine->ValuesChecked() && inst.end >= Time(0))
        {
            ++checked;
        }
        if (error.empty() && !inst.valueError.empty())
        {
            error = "job " + runner.Jobs()[inst.job].name + " step " + std::to_string(inst.step) +
                    " phase " + runner.Jobs()[inst.job].phases[inst.phase].name + ": " +
                    inst.valueError;
        }
    }
    summary["jobs"] = JobSummary(runner);
    summary["jobs_complete"] = runner.IsComplete();
    summary["job_collectives_checked"] = checked;
    summary["job_collectives_correct"] = error.empty();
    if (error.empty() && !runner.IsComplete())
    {
        error = "a job did not finish every step before stop_time";
    }
    return error;
}

} // namespace ns3
