// SPDX-License-Identifier: GPL-2.0
/*
 * sdma_probe.c - the probe of the send engines (sdma_init) and, when the
 * vector asks, the teardown of what it made (sdma_clean, as the driver's
 * removal calls it), and the text of what dd and its new engines hold
 * after each.
 *
 * The probe runs on the world's device with none of what it allocates
 * (build.c clears the head and pad memory and the per-CPU table); the
 * world's SDMA map, if it has one, is in blocks of its own as
 * sdma_map_init()'s call has it (vl_maps.c), so the map the probe
 * replaces, or a failed probe frees, is a block.  dd has no engines
 * when the probe starts (per_sdma NULL, num_sdma 0).  The engines it makes
 * are named by their index in dd->per_sdma (sde#i), as the world's are:
 * the world's own are not in the probe's way (the QP's engine keeps its
 * ring; nothing the probe does reaches it).
 */
#include "calls.h"

#define SHIM_STR(name) #name,
static const char *const sdma_state_names_c[] = { SHIM_SDMA_STATE_NAMES(SHIM_STR) };
#undef SHIM_STR

/*
 * Whether an engine's clean-up task is set up: a tasklet's callback, or
 * the function of a BH work item in a tree converted to the BH
 * workqueues (entries.h).
 */
static inline bool shim_tasklet_set(const struct tasklet_struct *t)
{
	return t->callback;
}

static inline bool shim_work_set(const struct work_struct *w)
{
	return w->func;
}

#define shim_task_set(task)						\
	_Generic(&(task),						\
		 const struct tasklet_struct * : shim_tasklet_set,		\
		 struct tasklet_struct * : shim_tasklet_set,			\
		 const struct work_struct * : shim_work_set,			\
		 struct work_struct * : shim_work_set)(&(task))

/* A uint module parameter the probe reads where the tree keeps it. */
static bool shim_has_uint_param(const char *name)
{
	return shim_static_data_of(name, sizeof(uint)) != NULL;
}

/*
 * What would crash the world or make upstream's behaviour undefined
 * (corpus::invariants says why of each): the module parameters where the
 * world sets them, a port of dd->pport[], 1 to 16 engines on the chip
 * (0 divides by zero; the map's back-map has 16 entries), and at least an
 * engine per operational VL whichever count the probe takes
 * (roundup_pow_of_two(0) in sdma_map_init()).
 */
bool shim_check_sdma_init(const struct shim_call *c)
{
	const struct shim_world *sw = &c->world;
	u32 mod = sw->mod_num_sdma_set ? sw->mod_num_sdma : 0;

	return shim_has_uint_param("sdma_descq_cnt") && shim_has_uint_param("sdma_idle_cnt") &&
	       shim_has_uint_param("mod_num_sdma") && shim_has_uint_param("sdma_desct_intr") &&
	       c->args.sdma_init.port < SHIM_MAX_PORTS &&
	       sw->chip_sdma_engines >= 1 && sw->chip_sdma_engines <= TXE_NUM_SDMA_ENGINES &&
	       sw->vls_operational >= 1 && sw->vls_operational <= sw->chip_sdma_engines &&
	       (!mod || sw->vls_operational <= mod);
}

/* The engines dd->per_sdma holds when it is not the world's: their count, else -1. */
static long shim_new_engines(void)
{
	const struct sdma_engine *e = shim_w.dd.per_sdma;

	if (!e || e == shim_w.per_sdma || !shim_block_size(e))
		return -1;
	return shim_block_size(e) / sizeof(*e);
}

/* An engine of the probe's array, or a member of one: sde#i, sde#i.member. */
int shim_new_sde_name(const void *p, char *buf, size_t len)
{
	const struct sdma_engine *e = shim_w.dd.per_sdma;
	long n = shim_new_engines();
	size_t off;

	if (n < 0 || p < (const void *)e || p >= (const void *)(e + n))
		return -1;
	off = (const char *)p - (const char *)e;
	if (off % sizeof(*e) == 0)
		return snprintf(buf, len, "sde#%zu", off / sizeof(*e));
	return snprintf(buf, len, "sde#%zu+0x%zx", off / sizeof(*e), off % sizeof(*e));
}

static const char *shim_state_name(enum sdma_states s)
{
	unsigned int i;

	for (i = 0; i < SHIM_SDMA_STATE_COUNT; i++)
		if (sdma_state_values[i] == s)
			return sdma_state_names_c[i];
	return "?";
}

/* dd's flags by the world's names (index bits), and any other bits. */
static void shim_put_dd_flags(struct shim_outcome *out)
{
	unsigned long f = shim_w.dd.flags;
	u32 bits = 0;
	unsigned int i;

	for (i = 0; i < SHIM_DEV_FLAG_COUNT; i++) {
		if (f & dev_flag_values[i])
			bits |= 1u << i;
		f &= ~dev_flag_values[i];
	}
	shim_put(out, " flags=0x%x", bits);
	if (f)
		shim_put(out, "+0x%lx", f);
}

/* A block of coherent DMA memory dd holds: its size and bus address, or NULL. */
static void shim_put_dma(struct shim_outcome *out, const char *name, const volatile void *p,
			 u64 phys)
{
	if (p)
		shim_put(out, " %s=%zu@0x%llx", name, shim_block_size((const void *)p),
			 (unsigned long long)phys);
	else
		shim_put(out, " %s=NULL phys=0x%llx", name, (unsigned long long)phys);
}

/* One engine of the probe's array: every field sdma_init() sets. */
static void shim_put_new_sde(struct shim_outcome *out, const struct sdma_engine *sde,
			     unsigned int i)
{
	char tail[64];
	long port = sde->ppd ? sde->ppd - shim_w.pport : -1;

	shim_csr_addr_name(sde->tail_csr, tail, sizeof(tail));
	shim_put(out, " sde#%u: dd=%s ppd=pport[%ld] this_idx=%u descq_cnt=%u desc_avail=%u",
		 i, jp(sde->dd), port, sde->this_idx, sde->descq_cnt, sde->desc_avail);
	shim_put(out, " shift=%u mask=0x%x int_mask=0x%llx progress_mask=0x%llx",
		 sde->sdma_shift, sde->sdma_mask, (unsigned long long)sde->int_mask,
		 (unsigned long long)sde->progress_mask);
	shim_put(out, " idle_mask=0x%llx imask=0x%llx ahg_bits=0x%llx",
		 (unsigned long long)sde->idle_mask, (unsigned long long)sde->imask,
		 (unsigned long long)sde->ahg_bits);
	shim_put(out, " state=%s prev=%s op=0x%x prev_op=0x%x go=%u kref=%u done=%u",
		 shim_state_name(sde->state.current_state),
		 shim_state_name(sde->state.previous_state), sde->state.current_op,
		 sde->state.previous_op, sde->state.go_s99_running,
		 refcount_read(&sde->state.kref.refcount), sde->state.comp.done);
	shim_put(out, " ctrl=0x%llx tail_csr=%s check_head=%u", (unsigned long long)sde->p_senddmactrl,
		 tail, sde->progress_check_head);
	shim_put_dma(out, "descq", sde->descq, sde->descq_phys);
	shim_put(out, " tx_ring=%zu", sde->tx_ring ? shim_block_size(sde->tx_ring) : 0);
	if (sde->head_dma && shim_w.dd.sdma_heads_dma)
		shim_put(out, " head=heads+%td", (const char *)sde->head_dma -
			 (const char *)(const void *)shim_w.dd.sdma_heads_dma);
	else
		shim_put(out, " head=%s", sde->head_dma ? "other" : "NULL");
	shim_put(out, " head_phys=0x%llx", (unsigned long long)sde->head_phys);
	shim_put(out, " timer_flags=0x%x", sde->err_progress_check_timer.flags);
	shim_put(out, " lists=%s tasks=%s%s%s%s%s",
		 list_empty(&sde->dmawait) && list_empty(&sde->flushlist) ? "empty" : "not-empty",
		 shim_task_set(sde->sdma_hw_clean_up_task) ? "h" : "-",
		 shim_task_set(sde->sdma_sw_clean_up_task) ? "s" : "-",
		 sde->err_halt_worker.func ? "w" : "-", sde->flush_worker.func ? "f" : "-",
		 sde->err_progress_check_timer.function ? "t" : "-");
}

/* What dd holds of the probe's: after it (and after the teardown). */
static void shim_put_probe(struct shim_outcome *out, const char *when)
{
	long n = shim_new_engines();
	long i;

	shim_put(out, "%s: num_sdma=%u", when, shim_w.dd.num_sdma);
	shim_put_dd_flags(out);
	shim_put(out, " default_desc1=0x%llx cap_sdma_ahg=%d",
		 (unsigned long long)shim_w.dd.default_desc1, !!HFI1_CAP_IS_KSET(SDMA_AHG));
	shim_put_dma(out, "heads", shim_w.dd.sdma_heads_dma, shim_w.dd.sdma_heads_phys);
	shim_put(out, " heads_size=%zu", shim_w.dd.sdma_heads_size);
	shim_put_dma(out, "pad", shim_w.dd.sdma_pad_dma, shim_w.dd.sdma_pad_phys);
	shim_put(out, " rht=%s", shim_w.dd.sdma_rht ? "set" : "NULL");
	if (!shim_w.dd.per_sdma || shim_w.dd.per_sdma == shim_w.per_sdma)
		shim_put(out, " per_sdma=%s", shim_w.dd.per_sdma ? "world" : "NULL");
	else if (n < 0)
		shim_put(out, " per_sdma=freed");
	else
		shim_put(out, " per_sdma=%ld engines", n);
	for (i = 0; i < n; i++)
		shim_put_new_sde(out, &shim_w.dd.per_sdma[i], i);
	shim_put(out, " ");
	shim_put_sdma_map(out);
	shim_put(out, ";");
}

SHIM_CALL(sdma_init)
{
	const struct shim_args_sdma_init *a = &c->args.sdma_init;

	if (!shim_heap_sdma_map(c))
		return shim_refuse(out);
	shim_begin(c, out);
	/* The probe's device: no engines yet (the world's stay where they are). */
	shim_w.dd.per_sdma = NULL;
	shim_w.dd.num_sdma = 0;
	out->ret = sdma_init(&shim_w.dd, a->port);
	out->text_len = 0;
	shim_put_probe(out, "probe");
	if (a->clean && !out->ret) {
		sdma_clean(&shim_w.dd, shim_w.dd.num_sdma);
		shim_put_probe(out, " teardown");
	}
	shim_vl_map_grace_period(&shim_w.sdma_map_heap);
	return 0;
}
