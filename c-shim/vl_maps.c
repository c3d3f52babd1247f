// SPDX-License-Identifier: GPL-2.0
/*
 * vl_maps.c - the calls that rebuild a VL map (sdma_map_init,
 * pio_map_init), and the text of the map they leave published.
 *
 * The world's maps are static storage (build.c); a call that replaces one
 * gets it in blocks of its own first, tracked as the world's, as the
 * driver's map is kzalloc'd: the RCU callback that frees the replaced map
 * then frees blocks (mocks/rcu.c runs it as the call returns).
 *
 * struct sdma_vl_map and struct pio_vl_map differ in their types, the name
 * of an element's array (sde, ksc) and the SDMA map's back-map, so one
 * body (a macro) serves both.
 */
#include "calls.h"

/*
 * The world's map `world` (NULL: none), copied into blocks: the map with
 * one slot per element the world allocated (actual_vls, what
 * sdma_map_free() and pio_map_free() walk), each allocated element a
 * block of its entries.
 */
#define SHIM_HEAP_MAP(maptype, elemtype, entry, world, nelems, what) ({	\
	const struct maptype *w_ = (world);					\
	const size_t esz_ = sizeof(struct elemtype) +				\
			    SHIM_ELEM_MAX_ENTRIES * sizeof(((struct elemtype *)0)->entry[0]); \
	struct maptype *m_ = NULL;						\
	unsigned int i_;							\
										\
	if (w_)									\
		m_ = shim_alloc_tracked(sizeof(*m_) + (nelems) * sizeof(m_->map[0]), \
					"the world's " what);			\
	if (m_) {								\
		memcpy(m_, w_, sizeof(*m_));					\
		m_->actual_vls = (nelems);					\
		m_->vls = (nelems);						\
		for (i_ = 0; i_ < (nelems); i_++) {				\
			m_->map[i_] = NULL;					\
			if (!w_->map[i_])					\
				continue;					\
			m_->map[i_] = shim_alloc_tracked(esz_, "an element of the world's " what); \
			if (!m_->map[i_]) {					\
				m_ = NULL;	/* the call is refused */	\
				break;						\
			}							\
			memcpy(m_->map[i_], w_->map[i_], esz_);			\
		}								\
	}									\
	m_;									\
})

/* Up to how many pointers of an array at `off` in block `p` it holds. */
static size_t shim_block_room(const void *p, size_t off, size_t each)
{
	size_t size = shim_block_size(p);

	return size > off ? (size - off) / each : 0;
}

/*
 * The map published as `name`: "NAME=NULL", "NAME=world" (the world's,
 * not replaced), or the map upstream built, each element up to what its
 * block holds (a mask past it is not followed) and an element that is an
 * earlier one again by its index. `m` is the published map, `heap` the
 * world's copy; `back` prints the back-map of the SDMA map.
 */
#define SHIM_DESCRIBE_MAP(out, name, maptype, elemtype, entry, m, heap, back) do { \
	const struct maptype *m_ = (m);						\
	unsigned int i_, j_, k_, nmap_, nent_;					\
										\
	if (!m_ || m_ == (heap)) {						\
		shim_put(out, name "=%s", m_ ? "world" : "NULL");		\
		break;								\
	}									\
	shim_put(out, name ": actual_vls=%u vls=%u mask=%u", m_->actual_vls,	\
		 m_->vls, m_->mask);						\
	back;									\
	nmap_ = min_t(size_t, m_->vls,						\
		      shim_block_room(m_, offsetof(struct maptype, map),	\
				      sizeof(m_->map[0])));			\
	for (i_ = 0; i_ < nmap_; i_++) {					\
		const struct elemtype *e_ = m_->map[i_];			\
										\
		for (k_ = 0; k_ < i_ && m_->map[k_] != e_; k_++)		\
			;							\
		if (k_ < i_) {							\
			shim_put(out, " map[%u]=map[%u]", i_, k_);		\
			continue;						\
		}								\
		if (!e_ || !shim_block_size(e_)) {				\
			shim_put(out, " map[%u]=%s", i_, jp(e_));		\
			continue;						\
		}								\
		shim_put(out, " map[%u]={mask=%u:", i_, e_->mask);		\
		nent_ = min_t(size_t, (size_t)e_->mask + 1,			\
			      shim_block_room(e_, offsetof(struct elemtype, entry), \
					      sizeof(e_->entry[0])));		\
		for (j_ = 0; j_ < nent_; j_++)					\
			shim_put(out, " %s", jp(e_->entry[j_]));		\
		shim_put(out, "}");						\
	}									\
} while (0)

/*
 * Each VL's count: given (`given`, n of them), or `total` spread over the
 * VLs (the loading both map inits compute), into `v`; whether every VL
 * has at least one and they add up to at most `most`.
 */
static bool shim_counts_fit(const u8 *given, unsigned int n, unsigned int num_vls,
			    unsigned int total, unsigned int most)
{
	unsigned int i, sum = 0;

	if (n && n != num_vls)
		return false;
	for (i = 0; i < num_vls; i++) {
		unsigned int v = n ? given[i] : total / num_vls + (i >= num_vls - total % num_vls);

		if (!v)
			return false;
		sum += v;
	}
	return sum <= most;
}

/*
 * What would crash the world or make upstream's behaviour undefined
 * (corpus::invariants says why of each): 1 to 16 VLs (0 divides by zero,
 * more overrun the caller's array of OPA_MAX_VLS), a VL without an engine
 * or a context (roundup_pow_of_two(0)), engines past the device's (the
 * back-map has 16 entries), contexts past dd->kernel_send_context[]'s
 * num_send_contexts entries, kernel contexts the world does not have.
 */
bool shim_check_vl_map_init(const struct shim_call *c)
{
	const struct shim_world *sw = &c->world;
	unsigned int i, kernel;

	if (c->fn == SHIM_FN_SDMA_MAP_INIT) {
		const struct shim_args_sdma_map_init *a = &c->args.sdma_map_init;

		return a->num_vls >= 1 && a->num_vls <= 16 &&
		       shim_counts_fit(a->vl_engines.v, a->vl_engines.n, a->num_vls,
				       sw->sdma_cpus.n, sw->sdma_cpus.n);
	}
	if (sw->kernel_sc.n > ARRAY_SIZE(sw->kernel_sc.v) ||
	    sw->kernel_sc.n > sw->num_send_contexts)
		return false;
	for (i = 0; i < sw->kernel_sc.n; i++)
		if (sw->kernel_sc.v[i] != SHIM_NONE &&
		    (sw->kernel_sc.v[i] < 0 || sw->kernel_sc.v[i] >= sw->num_send_contexts))
			return false;
	/* The world is not built yet: its types, SC_KERNEL where none is said. */
	kernel = sw->num_send_contexts;
	for (i = 0; i < sw->sc_type.n && i < ARRAY_SIZE(sw->sc_type.idx); i++)
		kernel -= sw->sc_type.idx[i] < sw->num_send_contexts &&
			  sw->sc_type.val[i] != SHIM_SC_KERNEL;
	return c->args.pio_map_init.num_vls >= 1 && c->args.pio_map_init.num_vls <= 16 &&
	       sw->num_send_contexts >= 1 &&
	       shim_counts_fit(c->args.pio_map_init.vl_scontexts.v,
			       c->args.pio_map_init.vl_scontexts.n,
			       c->args.pio_map_init.num_vls, kernel,
			       sw->num_send_contexts - 1);
}

/* The SDMA map published, appended to the text (sdma_init()'s too). */
void shim_put_sdma_map(struct shim_outcome *out)
{
	const struct sdma_vl_map *m = rcu_dereference_raw(shim_w.dd.sdma_map);
	unsigned int i;

	SHIM_DESCRIBE_MAP(out, "sdma_map", sdma_vl_map, sdma_map_elem, sde, m,
			  shim_w.sdma_map_heap, ({
		shim_put(out, " engine_to_vl=");
		for (i = 0; i < ARRAY_SIZE(m->engine_to_vl); i++)
			shim_put(out, "%s%d", i ? "," : "", m->engine_to_vl[i]);
	}));
}

static void shim_describe_sdma_map(struct shim_outcome *out)
{
	out->text_len = 0;
	shim_put_sdma_map(out);
}

/* The PIO map published, appended to the text (init_pervl_scs()'s too). */
void shim_put_pio_map(struct shim_outcome *out)
{
	const struct pio_vl_map *m = rcu_dereference_raw(shim_w.dd.pio_map);

	SHIM_DESCRIBE_MAP(out, "pio_map", pio_vl_map, pio_map_elem, ksc, m,
			  shim_w.pio_map_heap, (void)0);
}

static void shim_describe_pio_map(struct shim_outcome *out)
{
	out->text_len = 0;
	shim_put_pio_map(out);
}

/*
 * The call's grace period ends: the map it replaced is freed (its RCU
 * callback), and the shim keeps no pointer to the world's copy, so the
 * leak check sees a copy upstream no longer reaches.
 */
void shim_vl_map_grace_period(void *heap)
{
	shim_rcu_barrier();
	*(void **)heap = NULL;
}

/*
 * The world's SDMA map in blocks of its own, published, for a call that
 * replaces or frees it (sdma_map_init(), sdma_init()); false when the
 * copy could not be made (the call is refused).
 */
bool shim_heap_sdma_map(const struct shim_call *c)
{
	shim_w.sdma_map_heap = SHIM_HEAP_MAP(sdma_vl_map, sdma_map_elem, sde,
					     rcu_dereference_raw(shim_w.dd.sdma_map),
					     c->world.sdma_map.nelems, "sdma_map");
	if (c->world.sdma_map.present && !shim_w.sdma_map_heap)
		return false;
	RCU_INIT_POINTER(shim_w.dd.sdma_map, shim_w.sdma_map_heap);
	return true;
}

/* The world's PIO map in blocks of its own, published, as for the SDMA map. */
bool shim_heap_pio_map(const struct shim_call *c)
{
	shim_w.pio_map_heap = SHIM_HEAP_MAP(pio_vl_map, pio_map_elem, ksc,
					    rcu_dereference_raw(shim_w.dd.pio_map),
					    c->world.pio_map.nelems, "pio_map");
	if (c->world.pio_map.present && !shim_w.pio_map_heap)
		return false;
	RCU_INIT_POINTER(shim_w.dd.pio_map, shim_w.pio_map_heap);
	return true;
}

SHIM_CALL(sdma_map_init)
{
	const struct shim_args_sdma_map_init *a = &c->args.sdma_map_init;
	u8 vl_engines[SHIM_ELEM_MAX_ENTRIES];
	int ret;

	if (!shim_heap_sdma_map(c))
		return shim_refuse(out);
	memcpy(vl_engines, a->vl_engines.v, sizeof(vl_engines));
	shim_begin(c, out);
	ret = sdma_map_init(&shim_w.dd, a->port, a->num_vls,
			    a->vl_engines.n ? vl_engines : NULL);
	out->ret = ret;
	shim_describe_sdma_map(out);
	shim_vl_map_grace_period(&shim_w.sdma_map_heap);
	return 0;
}

SHIM_CALL(pio_map_init)
{
	const struct shim_args_pio_map_init *a = &c->args.pio_map_init;
	const struct shim_world *sw = &c->world;
	u8 vl_scontexts[SHIM_ELEM_MAX_ENTRIES];
	unsigned int i;
	int ret;

	if (!shim_heap_pio_map(c))
		return shim_refuse(out);
	/* What init_pervl_scs() left: the kernel's contexts, NULL past them. */
	for (i = 0; i < ARRAY_SIZE(shim_w.kernel_sc); i++)
		shim_w.kernel_sc[i] = i < sw->kernel_sc.n ? shim_sc(sw->kernel_sc.v[i]) : NULL;
	shim_w.dd.kernel_send_context = shim_w.kernel_sc;
	shim_w.rcd0.rcvhdrqentsize = sw->rcvhdrqentsize;
	shim_w.rcd[0] = &shim_w.rcd0;
	shim_w.dd.rcd = shim_w.rcd;
	memcpy(vl_scontexts, a->vl_scontexts.v, sizeof(vl_scontexts));
	shim_begin(c, out);
	ret = pio_map_init(&shim_w.dd, a->port, a->num_vls,
			   a->vl_scontexts.n ? vl_scontexts : NULL);
	out->ret = ret;
	shim_describe_pio_map(out);
	shim_vl_map_grace_period(&shim_w.pio_map_heap);
	return 0;
}

/* dd->kernel_send_context as a call left it: the world's block, NULL or freed. */
static void shim_put_ksc(struct shim_outcome *out, struct send_context **world)
{
	struct send_context **k = shim_w.dd.kernel_send_context;

	shim_put(out, " kernel_send_context=%s",
		 !k ? "NULL" : k != world ? "other" : shim_block_size(k) ? "world" : "freed");
}

/*
 * The PIO map and the kernel's contexts' array freed at removal.  The
 * world's map is in blocks of its own (as for pio_map_init()), the
 * world's kernel_sc a block of as many pointers (init_pervl_scs()
 * kcalloc's it), none when it is empty; its entries are not read.
 */
SHIM_CALL(free_pio_map)
{
	const struct shim_world *sw = &c->world;
	struct send_context **ksc = NULL;

	if (!shim_heap_pio_map(c))
		return shim_refuse(out);
	if (sw->kernel_sc.n) {
		ksc = shim_alloc_tracked(sw->kernel_sc.n * sizeof(*ksc),
					 "the world's kernel_send_context");
		if (!ksc)
			return shim_refuse(out);
	}
	shim_w.dd.kernel_send_context = ksc;
	shim_begin(c, out);
	free_pio_map(&shim_w.dd);
	shim_describe_pio_map(out);
	shim_put_ksc(out, ksc);
	shim_vl_map_grace_period(&shim_w.pio_map_heap);
	return 0;
}
