// deadlock and simulator: how the run watches for PFC deadlocks, and its event scheduler.

#include "config/config-sections.h"

namespace ns3
{

namespace
{

void
ReadCheckInterval(YamlFields& deadlock, const ScenarioKey& key, ScenarioBuild& b)
{
    b.cfg.deadlockCheckInterval = ValueOf(deadlock, key).time;
}

void
ReadDeadlockTimeout(YamlFields& deadlock, const ScenarioKey& key, ScenarioBuild& b)
{
    b.cfg.deadlockTimeout = ValueOf(deadlock, key).time;
}

/// The event scheduler: every choice pops events in the same (time, insertion) order, so
/// results do not depend on it; only the speed does (bench/PROFILE.md).
void
ReadScheduler(YamlFields& simulator, const ScenarioKey& key, ScenarioBuild& b)
{
    std::string chosen = ValueOf(simulator, key).text;
    for (const auto& [name, typeName] : key.choices)
    {
        if (name == chosen)
        {
            b.cfg.scheduler = typeName;
        }
    }
}

KeyCheck
PowerOfTwo(const std::string& message)
{
    return [message](const KeyValue& v) {
        bool ok = v.count != 0 && v.count <= (1u << 24) && (v.count & (v.count - 1)) == 0;
        return ok ? std::string() : message;
    };
}

} // namespace

ScenarioKeys
SimulatorKeys()
{
    const std::string wheel = "ns3::FabricWheelScheduler::";
    return {
        ScenarioKey("deadlock", KeyKind::Mapping, "PFC deadlock detection").Reader(ReadSection),
        ScenarioKey("deadlock.check_interval",
                    KeyKind::Duration,
                    "how often to look for cycles of paused ports")
            .Default("100us")
            .Reader(ReadCheckInterval),
        ScenarioKey("deadlock.timeout",
                    KeyKind::Duration,
                    "a cycle without progress this long is a deadlock")
            .Default("1ms")
            .Reader(ReadDeadlockTimeout),
        ScenarioKey("simulator", KeyKind::Mapping, "the event scheduler").Reader(ReadSection),
        ScenarioKey("simulator.scheduler",
                    KeyKind::Choice,
                    "event set: wheel (timing wheel), heap, map or calendar (ns-3's); all give "
                    "identical results, they differ in speed")
            .MappedChoices({{"wheel", "ns3::FabricWheelScheduler"},
                            {"heap", "ns3::PriorityQueueScheduler"},
                            {"map", "ns3::MapScheduler"},
                            {"calendar", "ns3::CalendarScheduler"}})
            .Default("wheel")
            .Reader(ReadScheduler),
        ScenarioKey("simulator.bucket_width",
                    KeyKind::Duration,
                    "wheel: time one bucket covers, rounded up to a power of two picoseconds")
            .Attribute(wheel + "BucketWidth")
            .Check(Positive("must be positive")),
        ScenarioKey("simulator.buckets",
                    KeyKind::Count,
                    "wheel: number of buckets; later events wait in a heap")
            .Attribute(wheel + "Buckets")
            .Check(PowerOfTwo("must be a power of two between 1 and 16777216")),
    };
}

} // namespace ns3
