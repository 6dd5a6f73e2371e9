#include "record/run-recorder.h"

#include "host/congestion-control.h"

#include "ns3/callback.h"
#include "ns3/simulator.h"
#include "ns3/trace-helper.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

namespace
{
void
WritePcap(Ptr<PcapFileWrapper> file, Ptr<const Packet> frame)
{
    file->Write(Simulator::Now(), frame);
}

/// cc.csv's columns after time_ns and flow_id, from the sender's one trace record: its rate
/// (a window-only sender: window x 8 / its last RTT sample, empty until an ACK carried one),
/// alpha, the window, the RTT, u and the target rate; a field the algorithm leaves unset stays
/// empty.
void
WriteCcColumns(std::ostream& row, const FabricCongestionControl& cc)
{
    CcTraceState state = cc.GetTraceState();
    row << cc.GetName() << ',';
    if (!std::isnan(state.rate))
    {
        row << state.rate / 1e9;
    }
    else if (state.windowBytes > 0 && state.rtt.IsStrictlyPositive())
    {
        // bytes x 8 / ns = Gb/s
        row << state.windowBytes * 8.0 / static_cast<double>(state.rtt.GetNanoSeconds());
    }
    row << ',';
    if (!std::isnan(state.alpha))
    {
        row << state.alpha;
    }
    row << ',';
    if (state.windowBytes > 0)
    {
        row << state.windowBytes;
    }
    row << ',';
    if (state.rtt.IsStrictlyPositive())
    {
        row << state.rtt.GetNanoSeconds();
    }
    row << ',';
    if (!std::isnan(state.utilisation))
    {
        row << state.utilisation;
    }
    row << ',';
    if (!std::isnan(state.targetRate))
    {
        row << state.targetRate / 1e9;
    }
    row << '\n';
}
} // namespace

RunRecorder::RunRecorder(const FabricNetwork* net,
                         const TraceConfig& config,
                         const std::string& outDir)
    : m_net(net),
      m_config(config),
      m_outDir(outDir)
{
}

void
RunRecorder::Start()
{
    const TopologySpec& spec = m_net->Spec();
    if (m_config.hpcc.Any())
    {
        m_hpcc = std::make_unique<HpccOutputs>(m_net, m_config.hpcc, m_outDir);
        m_hpcc->Start();
    }
    m_queues.Open(m_outDir + "/queues.csv", "time_ns,node,port,priority,bytes");
    m_pfc.Open(m_outDir + "/pfc.csv", "time_ns,node,port,priority,event,quanta");
    m_rates.Open(m_outDir + "/rates.csv", "time_ns,flow_id,src,rate_gbps");
    m_cc.Open(m_outDir + "/cc.csv",
              "time_ns,flow_id,cc,rate_gbps,alpha,window_bytes,rtt_ns,u,target_gbps");

    for (uint32_t n = 0; n < spec.nodes.size(); ++n)
    {
        if (!m_net->IsLocal(n))
        {
            continue; // simulated (and traced) by another rank
        }
        const std::string& name = spec.nodes[n].name;
        if (Ptr<FabricSwitch> sw = m_net->GetSwitch(n))
        {
            sw->TraceConnectWithoutContext("Watchdog",
                                           MakeCallback(&RunRecorder::WatchdogEvent, this).Bind(n));
            if (sw->IsTrimEnabled())
            {
                if (!m_trims.IsOpen())
                {
                    m_trims.Open(m_outDir + "/trims.csv", "time_ns,node,port,flow_id,bytes");
                }
                sw->TraceConnectWithoutContext("Trim",
                                               MakeCallback(&RunRecorder::TrimEvent, this).Bind(n));
            }
        }
        bool sampled = m_config.queueNodes.empty() ? spec.nodes[n].isSwitch
                                                   : std::find(m_config.queueNodes.begin(),
                                                               m_config.queueNodes.end(),
                                                               name) != m_config.queueNodes.end();
        bool pcap = m_config.pcap &&
                    (m_config.pcapNodes.empty() ||
                     std::find(m_config.pcapNodes.begin(), m_config.pcapNodes.end(), name) !=
                         m_config.pcapNodes.end());
        for (uint32_t p = 0; p < m_net->GetNPorts(n); ++p)
        {
            Ptr<FabricNetDevice> dev = m_net->GetDevice(n, p);
            if (dev->GetCredits())
            {
                m_creditPorts.push_back(CreditPort{n, p, {}});
            }
            if (sampled && Traced(p) && m_net->GetSwitch(n) &&
                m_net->GetSwitch(n)->GetMmu()->LimitsLossyEgress())
            {
                m_thresholdPorts.push_back(ThresholdPort{n, p, m_net->GetSwitch(n)->GetMmu(), {}});
            }
            if (sampled && Traced(p))
            {
                if (m_config.queueOnChange)
                {
                    dev->TraceConnectWithoutContext(
                        "QueueBytes",
                        MakeCallback(&RunRecorder::QueueChanged, this).Bind(n, p));
                }
                else
                {
                    m_sampled.push_back(SampledPort{n, p, {}});
                }
            }
            PfcTap& tap = m_pfcTaps.emplace_back(PfcTap{this, n, p});
            dev->ConnectPfcTraces(MakeCallback(&PfcTap::Sent, &tap),
                                  MakeCallback(&PfcTap::Received, &tap));
            if (pcap)
            {
                Ptr<PcapFileWrapper> file = CreateObject<PcapFileWrapper>();
                file->Open(m_outDir + "/" + name + "-" + std::to_string(p) + ".pcap",
                           std::ios::out | std::ios::binary);
                file->Init(PcapHelper::DLT_EN10MB, m_config.pcapSnapLen);
                dev->TraceConnectWithoutContext("Sniffer", MakeBoundCallback(&WritePcap, file));
                m_pcaps.push_back(file);
            }
        }
    }
    m_lastDelivered.assign(m_net->GetFlowTable()->GetN(), 0);
    if (!m_creditPorts.empty())
    {
        m_credits.Open(m_outDir + "/credits.csv",
                       "time_ns,node,port,vl,available,in_use,held,pending");
        m_creditTicker = Every(m_config.queueInterval, Time(0), &RunRecorder::SampleCredits);
    }
    if (!m_sampled.empty())
    {
        m_queueTicker = Every(m_config.queueInterval, Time(0), &RunRecorder::SampleQueues);
    }
    if (!m_thresholdPorts.empty())
    {
        m_thresholds.Open(m_outDir + "/buffer-thresholds.csv",
                          "time_ns,node,port,priority,side,bytes,threshold,n_p,mu");
        m_thresholdTicker = Every(m_config.queueInterval, Time(0), &RunRecorder::SampleThresholds);
    }
    m_rateTicker = Every(m_config.rateInterval, m_config.rateInterval, &RunRecorder::SampleRates);
}

void
RunRecorder::SampleQueues()
{
    uint64_t now = static_cast<uint64_t>(Simulator::Now().GetNanoSeconds());
    auto& out = m_queues.Row();
    for (SampledPort& sp : m_sampled)
    {
        Ptr<FabricNetDevice> dev = m_net->GetDevice(sp.node, sp.port);
        for (uint8_t q = 0; q < kFabricPriorities; ++q)
        {
            if (((m_config.queuePriorities >> q) & 1) == 0)
            {
                continue;
            }
            uint64_t bytes = dev->GetQueueBytes(q);
            // Rows only where something is or just was queued: keeps files proportional to
            // congestion rather than to ports × samples.
            if (bytes > 0 || sp.last[q] > 0)
            {
                out << now << ',' << m_net->NodeName(sp.node) << ',' << sp.port << ','
                    << unsigned(q) << ',' << bytes << '\n';
            }
            sp.last[q] = bytes;
        }
    }
}

void
RunRecorder::SampleThresholds()
{
    uint64_t now = static_cast<uint64_t>(Simulator::Now().GetNanoSeconds());
    auto& out = m_thresholds.Row();
    for (ThresholdPort& tp : m_thresholdPorts)
    {
        for (uint8_t q = 0; q < kFabricPriorities; ++q)
        {
            MmuQueueThreshold t;
            if (((m_config.queuePriorities >> q) & 1) == 0 ||
                !tp.mmu->GetQueueThreshold(tp.port, q, &t))
            {
                continue;
            }
            // Like queues.csv: rows only where something is or just was held. side: egress, the
            // lossy queue (egress port, priority); ingress, a lossless (ingress port, priority)
            // whose threshold is its XOFF.
            if (t.bytes > 0 || tp.last[q] > 0)
            {
                out << now << ',' << m_net->NodeName(tp.node) << ',' << tp.port << ','
                    << unsigned(q) << ',' << (t.ingress ? "ingress" : "egress") << ',' << t.bytes
                    << ',' << t.threshold << ',' << t.congested << ',' << t.drainRate << '\n';
            }
            tp.last[q] = t.bytes;
        }
    }
}

void
RunRecorder::SampleCredits()
{
    uint64_t now = static_cast<uint64_t>(Simulator::Now().GetNanoSeconds());
    auto& out = m_credits.Row();
    for (CreditPort& cp : m_creditPorts)
    {
        const CreditFlowControl& c = *m_net->GetDevice(cp.node, cp.port)->GetCredits();
        for (uint8_t vl = 0; vl < kFabricPriorities; ++vl)
        {
            if (!c.IsCredited(vl))
            {
                continue;
            }
            uint64_t inUse = c.GetSent(vl) - c.GetReturned(vl);
            bool busy = inUse > 0 || c.GetHeld(vl) > 0 || c.GetPending(vl) > 0;
            // Like queues.csv: rows only while credits are out (and the sample after), so the
            // file follows the traffic rather than ports × samples.
            if (busy || cp.lastBusy[vl])
            {
                out << now << ',' << m_net->NodeName(cp.node) << ',' << cp.port << ','
                    << unsigned(vl) << ',' << c.Available(vl) << ',' << inUse << ','
                    << c.GetHeld(vl) << ',' << c.GetPending(vl) << '\n';
            }
            cp.lastBusy[vl] = busy;
        }
    }
}

bool
RunRecorder::Traced(uint32_t port) const
{
    return m_config.queuePorts.empty() ||
           std::find(m_config.queuePorts.begin(), m_config.queuePorts.end(), port) !=
               m_config.queuePorts.end();
}

void
RunRecorder::QueueChanged(uint32_t node, uint32_t port, uint8_t priority, uint64_t bytes)
{
    if (((m_config.queuePriorities >> priority) & 1) == 0)
    {
        return;
    }
    m_queues.Row() << Simulator::Now().GetNanoSeconds() << ',' << m_net->NodeName(node) << ','
                   << port << ',' << unsigned(priority) << ',' << bytes << '\n';
}

void
RunRecorder::SampleRates()
{
    Ptr<FlowTable> flows = m_net->GetFlowTable();
    uint64_t now = static_cast<uint64_t>(Simulator::Now().GetNanoSeconds());
    double seconds = m_config.rateInterval.GetSeconds();
    auto& out = m_rates.Row();
    // Job workloads add their flows while the run goes on.
    m_lastDelivered.resize(flows->GetN(), 0);
    for (uint32_t i = 0; i < flows->GetN(); ++i)
    {
        const FlowRecord& f = flows->Get(i);
        uint64_t delta = f.deliveredBytes - m_lastDelivered[i];
        // Sampled where the data arrives (the destination, the source for a READ, a load or an
        // atomic); a flow is active until it has delivered everything, which that end knows without
        // hearing from the sender (so a distributed run writes the same rows). Bytes delivered mean
        // the flow has started: the sink's rank may not know the start of a flow it did not post.
        uint32_t sink = DataToRequester(f.verb) ? f.src : f.dst;
        bool active = delta > 0 || (!f.finished && f.deliveredBytes < f.bytes);
        if (active && f.deliveredBytes > 0 && m_net->IsHostLocal(sink))
        {
            out << now << ',' << i << ',' << m_net->NodeName(m_net->NodeOfHost(f.src)) << ','
                << (delta * 8.0 / seconds / 1e9) << '\n';
        }
        m_lastDelivered[i] = f.deliveredBytes;
        // The sender's congestion-control state: its allowed rate, and what the algorithm
        // keeps (alpha, window, RTT, INT utilisation). A UB flow shows the state of the channel
        // that carries it (one channel may carry several flows to the same target: they show
        // the same window).
        auto cc = DynamicCast<FabricCongestionControl>(f.cc);
        if (cc && !f.finished)
        {
            auto& row = m_cc.Row();
            row << now << ',' << i << ',';
            WriteCcColumns(row, *cc);
        }
    }
}

std::unique_ptr<SamplingTicker>
RunRecorder::Every(Time interval, Time first, void (RunRecorder::*sampler)())
{
    auto ticker = std::make_unique<SamplingTicker>(interval, [this, sampler]() {
        (this->*sampler)();
        return true;
    });
    ticker->SetIdleness(m_idleness);
    ticker->Start(first);
    return ticker;
}

void
RunRecorder::PfcEvent(uint32_t node, uint32_t port, bool sent, uint8_t priority, uint16_t quanta)
{
    const char* event = sent ? (quanta ? "XOFF_SENT" : "XON_SENT")
                             : (quanta ? "PAUSE_RECEIVED" : "RESUME_RECEIVED");
    m_pfc.Row() << Simulator::Now().GetNanoSeconds() << ',' << m_net->NodeName(node) << ',' << port
                << ',' << unsigned(priority) << ',' << event << ',' << quanta << '\n';
    if (m_hpcc && !sent)
    {
        m_hpcc->PfcReceived(node, port, quanta);
    }
}

void
RunRecorder::WatchdogEvent(uint32_t node, uint32_t port, uint8_t priority, bool triggered)
{
    m_pfc.Row() << Simulator::Now().GetNanoSeconds() << ',' << m_net->NodeName(node) << ',' << port
                << ',' << unsigned(priority) << ','
                << (triggered ? "WATCHDOG_TRIGGERED" : "WATCHDOG_RESTORED") << ",0\n";
}

void
RunRecorder::TrimEvent(uint32_t node, uint32_t flowId, uint32_t port, uint32_t cutBytes)
{
    // bytes: the payload cut (the header goes on; the same bytes are a Drop of reason 5).
    m_trims.Row() << Simulator::Now().GetNanoSeconds() << ',' << m_net->NodeName(node) << ','
                  << port << ',' << flowId << ',' << cutBytes << '\n';
}

void
RunRecorder::Finish()
{
    for (auto* ticker : {&m_queueTicker, &m_rateTicker, &m_creditTicker, &m_thresholdTicker})
    {
        ticker->reset();
    }
    if (m_credits.IsOpen())
    {
        m_credits.Commit(m_config.gzipAbove);
    }
    m_queues.Commit(m_config.gzipAbove);
    m_pfc.Commit(m_config.gzipAbove);
    m_rates.Commit(m_config.gzipAbove);
    m_cc.Commit(m_config.gzipAbove);
    if (m_trims.IsOpen())
    {
        m_trims.Commit(m_config.gzipAbove);
    }
    if (m_thresholds.IsOpen())
    {
        m_thresholds.Commit(m_config.gzipAbove);
    }
    for (auto& f : m_pcaps)
    {
        f->Close();
    }
    if (m_hpcc)
    {
        m_hpcc->Finish();
    }
}

} // namespace ns3
