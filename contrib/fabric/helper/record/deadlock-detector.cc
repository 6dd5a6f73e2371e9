#include "record/deadlock-detector.h"

#include "ns3/simulator.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>
#include <map>
#include <sstream>
#include <tuple>

namespace ns3
{

DeadlockDetector::DeadlockDetector(const FabricNetwork* net, Time interval, Time timeout)
    : m_net(net),
      m_interval(interval),
      m_timeout(timeout),
      m_ticker(interval, [this]() { return Check(); })
{
}

void
DeadlockDetector::Start()
{
    m_ticker.Start(m_interval);
}

std::vector<QueueSample>
DeadlockDetector::SampleLocal() const
{
    const TopologySpec& spec = m_net->Spec();
    std::vector<QueueSample> sample;
    for (uint32_t n = 0; n < spec.nodes.size(); ++n)
    {
        if (!spec.nodes[n].isSwitch || !m_net->IsLocal(n))
        {
            continue;
        }
        for (uint32_t p = 0; p < m_net->GetNPorts(n); ++p)
        {
            Ptr<FabricNetDevice> dev = m_net->GetDevice(n, p);
            for (uint8_t q = 0; q < kFabricPriorities; ++q)
            {
                if (dev->GetQueueBytes(q) > 0 && dev->IsPaused(q))
                {
                    sample.push_back(QueueSample{n, p, q, dev->GetTxBytes(q)});
                }
            }
        }
    }
    return sample;
}

std::vector<std::vector<PausedQueue>>
DeadlockDetector::FindCycles(const std::vector<QueueSample>& sample) const
{
    std::vector<PausedQueue> vertices;
    std::map<std::tuple<uint32_t, uint32_t, uint8_t>, uint32_t> index;
    for (const QueueSample& q : sample)
    {
        index[{q.node, q.port, q.priority}] = static_cast<uint32_t>(vertices.size());
        vertices.push_back(PausedQueue{q.node, q.port, q.priority});
    }
    if (vertices.empty())
    {
        return {};
    }
    typedef boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS> Graph;
    Graph g(vertices.size());
    std::vector<bool> selfLoop(vertices.size(), false);
    for (uint32_t v = 0; v < vertices.size(); ++v)
    {
        PortRef peer = m_net->PeerOf(vertices[v].node, vertices[v].port);
        for (uint32_t p = 0; p < m_net->GetNPorts(peer.node); ++p)
        {
            auto it = index.find({peer.node, p, vertices[v].priority});
            if (it != index.end())
            {
                boost::add_edge(v, it->second, g);
                selfLoop[v] = selfLoop[v] || it->second == v;
            }
        }
    }
    std::vector<int> component(vertices.size());
    int nComponents = boost::strong_components(g, component.data());
    std::vector<std::vector<PausedQueue>> members(nComponents);
    for (uint32_t v = 0; v < vertices.size(); ++v)
    {
        members[component[v]].push_back(vertices[v]);
    }
    std::vector<std::vector<PausedQueue>> cycles;
    for (uint32_t v = 0; v < vertices.size(); ++v)
    {
        auto& m = members[component[v]];
        if (!m.empty() && (m.size() > 1 || selfLoop[v]))
        {
            cycles.push_back(m);
            m.clear();
        }
    }
    return cycles;
}

bool
DeadlockDetector::Check()
{
    if (Evaluate(SampleLocal(), Simulator::Now()))
    {
        Simulator::Stop();
        return false;
    }
    // An idle fabric has no paused queue holding data: its skipped checks find no cycle.
    return true;
}

bool
DeadlockDetector::Evaluate(std::vector<QueueSample> sample, Time at)
{
    // Node, port, priority order, whichever ranks the queues were sampled on.
    std::sort(sample.begin(), sample.end(), [](const QueueSample& a, const QueueSample& b) {
        return std::tie(a.node, a.port, a.priority) < std::tie(b.node, b.port, b.priority);
    });
    std::vector<std::vector<PausedQueue>> cycles = FindCycles(sample);
    if (cycles.empty())
    {
        m_candidate.clear();
        return false;
    }
    const std::vector<PausedQueue>& c = cycles.front();
    std::vector<uint64_t> tx;
    for (const auto& q : c)
    {
        auto it = std::lower_bound(sample.begin(),
                                   sample.end(),
                                   q,
                                   [](const QueueSample& s, const PausedQueue& k) {
                                       return std::tie(s.node, s.port, s.priority) <
                                              std::tie(k.node, k.port, k.priority);
                                   });
        tx.push_back(it->txBytes);
    }
    bool same = c.size() == m_candidate.size() && tx == m_candidateTx;
    for (size_t i = 0; same && i < c.size(); ++i)
    {
        same = c[i].node == m_candidate[i].node && c[i].port == m_candidate[i].port &&
               c[i].priority == m_candidate[i].priority;
    }
    if (!same)
    {
        m_candidate = c;
        m_candidateTx = tx;
        m_candidateSince = at;
        return false;
    }
    if (at - m_candidateSince < m_timeout)
    {
        return false;
    }
    m_detected = true;
    m_detectedAt = at;
    m_cycle = c;
    return true;
}

std::string
DeadlockDetector::Describe() const
{
    std::ostringstream os;
    for (size_t i = 0; i < m_cycle.size(); ++i)
    {
        const auto& q = m_cycle[i];
        os << (i ? " -> " : "") << m_net->NodeName(q.node) << ":" << q.port << ":p"
           << unsigned(q.priority);
    }
    return os.str();
}

} // namespace ns3
