#include "host-path.h"

#include <algorithm>

namespace ns3
{

namespace
{

using StageValues = std::vector<std::pair<std::string, std::string>>;

/// The stage attributes in table order with their values when no preset gives one (Datacenter
/// networks, chapter 7, §7.3.3: the table of one remote 64 B read).
const StageValues&
StageDefaults()
{
    static const StageValues defaults = {
        {"PostTime", "0ns"},
        {"DescriptorBuildTime", "0ns"},
        {"DoorbellTime", "0ns"},
        {"DescriptorFetchTime", "0ns"},
        {"SubmitBusTime", "0ns"},
        {"SequenceTime", "0ns"},
        {"PipelineCycles", "0"},
        {"PipelineClock", "322MHz"},
        {"TargetDmaReadTime", "0ns"},
        {"TargetBusTime", "0ns"},
        {"DramTime", "0ns"},
        {"PayloadWriteTime", "0ns"},
        {"CompletionWriteTime", "0ns"},
        {"CompletionBusTime", "0ns"},
        {"CqPollTime", "0ns"},
        {"LibraryPollTime", "0ns"},
    };
    return defaults;
}

/// A preset: every stage attribute, at the value \p given names or at its default.
HostPathPreset
Preset(std::string name, std::string description, const StageValues& given)
{
    StageValues values = StageDefaults();
    for (const auto& [attribute, value] : given)
    {
        for (auto& row : values)
        {
            if (row.first == attribute)
            {
                row.second = value;
            }
        }
    }
    return HostPathPreset{std::move(name), std::move(description), std::move(values)};
}

/// \p stages without the attributes named in \p dropped.
StageValues
Without(StageValues stages, const std::vector<std::string>& dropped)
{
    for (const std::string& name : dropped)
    {
        stages.erase(std::remove_if(stages.begin(),
                                    stages.end(),
                                    [&name](const auto& row) { return row.first == name; }),
                     stages.end());
    }
    return stages;
}

} // namespace

std::vector<std::string>
HostPathStageAttributes()
{
    std::vector<std::string> names;
    for (const auto& row : StageDefaults())
    {
        names.push_back(row.first);
    }
    return names;
}

const std::vector<HostPathPreset>&
HostPathPresets()
{
    // PCIe: one doorbell write 150 ns, one DMA read 500 ns, one DMA write 250 ns; one on-chip
    // bus crossing 30 ns; a DRAM row hit 30 ns; NIC pipelines of 9, 25 and 8 cycles at 322 MHz.
    static const StageValues kPcie = {{"PostTime", "50ns"},
                                      {"DescriptorBuildTime", "30ns"},
                                      {"DoorbellTime", "150ns"},
                                      {"DescriptorFetchTime", "500ns"},
                                      {"SequenceTime", "50ns"},
                                      {"PipelineCycles", "9"},
                                      {"TargetDmaReadTime", "500ns"},
                                      {"DramTime", "30ns"},
                                      {"PayloadWriteTime", "250ns"},
                                      {"CompletionWriteTime", "250ns"},
                                      {"CqPollTime", "70ns"},
                                      {"LibraryPollTime", "30ns"}};
    static const std::vector<HostPathPreset> presets = {
        Preset("none", "no host interface stages (every stage 0)", {}),
        Preset("pcie",
               "a peripheral PCIe NIC, asynchronous read (RoCE): post 50, descriptor 30, "
               "doorbell 150, descriptor DMA 500, sequence 50, 9 cycles, target DMA read 500, "
               "DRAM 30, payload and completion DMA writes 250 + 250, CQ poll 70, library poll 30",
               kPcie),
        Preset("pcie_nic_cpu",
               "the pcie path with the descriptor built by a processor inside the NIC: no "
               "doorbell, no descriptor DMA",
               Without(kPcie, {"DoorbellTime", "DescriptorFetchTime"})),
        Preset("onchip",
               "Unified Bus asynchronous read (URMA) through the on-chip bus controller: post 50, "
               "descriptor 30, bus 30, 25 cycles, target bus 30, DRAM 30, completion bus 30, "
               "CQ poll 5, library poll 30",
               {{"PostTime", "50ns"},
                {"DescriptorBuildTime", "30ns"},
                {"SubmitBusTime", "30ns"},
                {"PipelineCycles", "25"},
                {"TargetBusTime", "30ns"},
                {"DramTime", "30ns"},
                {"CompletionBusTime", "30ns"},
                {"CqPollTime", "5ns"},
                {"LibraryPollTime", "30ns"}}),
        Preset("load",
               "Unified Bus Load through the on-chip bus controller (verb: load): bus 30, "
               "8 cycles, target bus 30, DRAM 30, completion bus 30; no software post or poll",
               {{"SubmitBusTime", "30ns"},
                {"PipelineCycles", "8"},
                {"TargetBusTime", "30ns"},
                {"DramTime", "30ns"},
                {"CompletionBusTime", "30ns"}}),
    };
    return presets;
}

} // namespace ns3
