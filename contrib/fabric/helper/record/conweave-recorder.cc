#include "record/conweave-recorder.h"

#include "switch/conweave-load-balancer.h"
#include "switch/fabric-switch.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

ConWeaveRecorder::ConWeaveRecorder(const FabricNetwork* net, const std::string& outDir)
    : m_net(net)
{
    for (uint32_t n = 0; n < net->Spec().nodes.size(); ++n)
    {
        Ptr<FabricSwitch> sw = net->GetSwitch(n); // null: a host, or a switch of another rank
        if (!sw)
        {
            continue;
        }
        if (Ptr<ConWeaveLoadBalancer> lb = DynamicCast<ConWeaveLoadBalancer>(sw->GetLoadBalancer()))
        {
            m_balancers.emplace_back(n, lb);
        }
    }
    if (!m_balancers.empty())
    {
        m_csv.Open(outDir + "/conweave.csv",
                   "time_ns,switch,event,flow_id,queue,frames,bytes,old_path,new_path,reason");
    }
}

void
ConWeaveRecorder::Start()
{
    m_taps.reserve(m_balancers.size()); // the callbacks hold the taps' addresses
    for (const auto& [node, lb] : m_balancers)
    {
        m_taps.push_back(Tap{this, node});
        Tap* tap = &m_taps.back();
        lb->TraceConnectWithoutContext("Reroute", MakeCallback(&Tap::Reroute, tap));
        lb->TraceConnectWithoutContext("ReorderQueue", MakeCallback(&Tap::Queue, tap));
        lb->TraceConnectWithoutContext("Flush", MakeCallback(&Tap::Flush, tap));
    }
}

void
ConWeaveRecorder::Tap::Reroute(uint32_t flowId, uint64_t oldPath, uint64_t newPath, uint8_t reason)
{
    recorder->m_csv.Row() << Simulator::Now().GetNanoSeconds() << ','
                          << recorder->m_net->NodeName(node) << ",reroute," << flowId << ",,,,"
                          << ConWeaveLoadBalancer::PathText(oldPath) << ','
                          << ConWeaveLoadBalancer::PathText(newPath) << ','
                          << (reason == ConWeaveLoadBalancer::REROUTE_REPLY_TIMEOUT
                                  ? "reply_timeout"
                                  : "epoch_expiry")
                          << '\n';
}

void
ConWeaveRecorder::Tap::Queue(uint32_t queue, uint32_t flowId, uint32_t frames, uint64_t bytes)
{
    recorder->m_csv.Row() << Simulator::Now().GetNanoSeconds() << ','
                          << recorder->m_net->NodeName(node) << ",queue," << flowId << ',' << queue
                          << ',' << frames << ',' << bytes << ",,,\n";
}

void
ConWeaveRecorder::Tap::Flush(uint32_t queue, uint32_t flowId, uint32_t frames, bool byTail)
{
    recorder->m_csv.Row() << Simulator::Now().GetNanoSeconds() << ','
                          << recorder->m_net->NodeName(node) << ",flush," << flowId << ',' << queue
                          << ',' << frames << ",,,," << (byTail ? "tail" : "timeout") << '\n';
}

void
ConWeaveRecorder::Finish(uint64_t gzipAbove)
{
    if (!m_balancers.empty())
    {
        m_csv.Commit(gzipAbove);
    }
}

void
ConWeaveRecorder::Summarize(nlohmann::json& summary) const
{
    if (m_balancers.empty())
    {
        return;
    }
    uint64_t reroutes = 0;
    uint64_t byTail = 0;
    uint64_t byTimeout = 0;
    uint64_t held = 0;
    uint64_t unavailable = 0;
    uint32_t peakFrames = 0;
    uint64_t peakBytes = 0;
    uint32_t peakQueues = 0;
    uint64_t sent[4] = {0, 0, 0, 0};
    for (const auto& [node, lb] : m_balancers)
    {
        reroutes += lb->GetReroutes();
        byTail += lb->GetFlushesByTail();
        byTimeout += lb->GetFlushesByTimeout();
        held += lb->GetHeldFrames();
        unavailable += lb->GetQueueUnavailable();
        peakFrames = std::max(peakFrames, lb->GetMaxQueueFrames());
        peakBytes = std::max(peakBytes, lb->GetMaxQueueBytes());
        peakQueues = std::max(peakQueues, lb->GetMaxQueuesInUse());
        for (auto type : {ConWeaveLoadBalancer::RTT_REPLY,
                          ConWeaveLoadBalancer::CLEAR,
                          ConWeaveLoadBalancer::NOTIFY})
        {
            sent[type] += lb->GetControlSent(type);
        }
    }
    summary["conweave"] = {
        {"reroutes", reroutes},
        {"flushes_by_tail", byTail},
        {"flushes_by_timeout", byTimeout},
        {"held_frames", held},
        {"reorder_queue_unavailable", unavailable},
        {"max_reorder_queue_frames", peakFrames},
        {"max_reorder_queue_bytes", peakBytes},
        {"max_reorder_queues_in_use", peakQueues},
        {"control_frames",
         sent[ConWeaveLoadBalancer::RTT_REPLY] + sent[ConWeaveLoadBalancer::CLEAR] +
             sent[ConWeaveLoadBalancer::NOTIFY]},
        {"rtt_replies", sent[ConWeaveLoadBalancer::RTT_REPLY]},
        {"clears", sent[ConWeaveLoadBalancer::CLEAR]},
        {"notifies", sent[ConWeaveLoadBalancer::NOTIFY]},
    };
}

} // namespace ns3
