// The fabric needs picosecond time: at 400 Gb/s a 4 KiB frame takes 83.56 ns and a PFC frame
// 1.68 ns; nanosecond resolution would round every serialization time (and attribute defaults
// such as the 18.6 ns RoCE request interval). ns-3 allows one resolution change before any
// simulation; doing it while this library loads — before its own attribute defaults are
// created (init_priority runs this ahead of the other static objects of the library) — keeps
// those defaults exact. Programs that link the module get picosecond time.

#include "ns3/nstime.h"

namespace
{

struct PicosecondResolution
{
    PicosecondResolution()
    {
        if (ns3::Time::GetResolution() != ns3::Time::PS)
        {
            ns3::Time::SetResolution(ns3::Time::PS);
        }
    }
};

__attribute__((init_priority(101))) PicosecondResolution g_picosecondResolution;

} // namespace
