// How each runtime's test device is opened (one source file per runtime).
#ifndef TESSERA_TESTS_UNIT_RUNTIME_GPU_GPUTESTDEVICEKINDS_H
#define TESSERA_TESTS_UNIT_RUNTIME_GPU_GPUTESTDEVICEKINDS_H

#include "GpuTestDevice.h"

namespace tessera::gpu_testing {

DeviceSlot openVulkanTestDevice();
DeviceSlot openCudaTestDevice();
DeviceSlot openHipTestDevice();

} // namespace tessera::gpu_testing

#endif // TESSERA_TESTS_UNIT_RUNTIME_GPU_GPUTESTDEVICEKINDS_H
