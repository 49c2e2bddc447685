// A stand-in for NVML's header where the CUDA toolkit has none (a toolkit without cuda-nvml-dev):
// BabelStream's CUDA model asks NVML only for the memory clock, which it prints beside the
// device's name. This answers 0 MHz; nothing measured depends on it. perf/peers/babelstream/
// build.sh uses it only when <nvml.h> cannot be found, and links an empty libnvidia-ml then.
#pragma once
typedef enum { NVML_SUCCESS = 0, NVML_ERROR_UNKNOWN = 999 } nvmlReturn_t;
typedef enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 } nvmlClockType_t;
typedef struct nvmlDevice_st* nvmlDevice_t;
static inline const char* nvmlErrorString(nvmlReturn_t) { return "NVML stand-in (perf/peers/babelstream/no-nvml)"; }
static inline nvmlReturn_t nvmlInit(void) { return NVML_SUCCESS; }
static inline nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char*, nvmlDevice_t* device) {
  *device = nullptr;
  return NVML_SUCCESS;
}
static inline nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t, nvmlClockType_t, unsigned int* clock) {
  *clock = 0;
  return NVML_SUCCESS;
}
