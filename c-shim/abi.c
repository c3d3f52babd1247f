// SPDX-License-Identifier: GPL-2.0
/*
 * abi.c - what a world says of itself to the harness (its ABI version and
 * the sizes of the structs it was compiled with) and the benchmark entry
 * point (shim.h).
 */
#include "state.h"

shim_u32 shim_abi_version(void)
{
	return SHIM_ABI_VERSION;
}

shim_u64 shim_abi_sizes(void)
{
	return (shim_u64)sizeof(struct shim_call) << 32 | sizeof(struct shim_outcome);
}

/*
 * The raw cost of the upstream call: builds the world of `c` once, then
 * runs its function `iters` times (hfi1_setup_wqe; or qp_to_sdma_engine and
 * qp_to_send_context for the engine functions).  Returns a checksum of the
 * results so that the compiler keeps every call.
 */
shim_u64 shim_bench(const struct shim_call *c, shim_u64 iters)
{
	const struct shim_args *a = &c->args;
	shim_u64 i, sum = 0;
	bool call_send;

	if (!shim_check_call(c))
		return 0;
	shim_build_world(&c->world);
	shim_build_qp(c);
	for (i = 0; i < iters; i++) {
		switch (c->fn) {
		case SHIM_FN_HFI1_SETUP_WQE:
			call_send = a->hfi1_setup_wqe.call_send;
			sum += hfi1_setup_wqe(&shim_w.qp, &shim_w.swqe.wqe, &call_send) + call_send;
			break;
		default:
			sum += (unsigned long)qp_to_sdma_engine(&shim_w.qp, a->qp_to_sdma_engine.sc5) +
			       (unsigned long)qp_to_send_context(&shim_w.qp, a->qp_to_sdma_engine.sc5);
			break;
		}
	}
	return sum;
}

/*
 * gcov merges the counts into its .gcda files and, reset, starts again
 * (so the exit's own dump adds only what came after); clang's runtime
 * rewrites its .profraw with the process's counts so far.
 */
#if defined(SHIM_GCOV)
void __gcov_dump(void);
void __gcov_reset(void);
#elif defined(SHIM_LLVM_PROFILE)
int __llvm_profile_write_file(void);
#endif

int shim_flush_counters(void)
{
#if defined(SHIM_GCOV)
	__gcov_dump();
	__gcov_reset();
	return 1;
#elif defined(SHIM_LLVM_PROFILE)
	__llvm_profile_write_file();
	return 1;
#else
	return 0;
#endif
}
