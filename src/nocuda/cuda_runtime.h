/* cuda_runtime.h (CPU-only build): the runtime interface of cuda_runtime_api.h beside it. */
#include "cuda_runtime_api.h"
