// SPDX-License-Identifier: GPL-2.0
/*
 * contexts.c - the calls that lay out the device's send context table
 * (init_send_contexts), allocate a send context from it (sc_alloc,
 * whose error paths free it again: sc_free), allocate the kernel's at
 * probe (init_pervl_scs, with chip.c's hfi1_init_ctxt and driver.c's
 * enum_to_mtu, each also a call of its own), and the text of what they
 * leave: the tables laid out; the contexts made and the entries of
 * dd->send_contexts[] and dd->hw_to_sw[] changed.  And debugfs's dump of
 * an entry and its context (seqfile_dump_sci), printed into the text.
 *
 * An entry of the world's table is allocated unless the world freed its
 * context (world.sc_freed; build.c), so sc_alloc() takes the first freed
 * entry of its type.  The context it returns is a block of its own,
 * named sc:new[i] by its entry (shim_new_sc_name()), reached from the
 * table: the leak
 * check sees what it holds.  The table is the world's again next call
 * (build.c rebuilds it whole: sci_dirty).
 */
#include "calls.h"

#define SHIM_STR(name) #name,
static const char *const sc_type_names_c[] = { SHIM_SC_TYPE_NAMES(SHIM_STR) };
#undef SHIM_STR

/*
 * The world's table while an sc_alloc() or init_pervl_scs() runs on it
 * and after (until init_send_contexts() sets it NULL): the only table
 * shim_new_sc_name() reads (init_send_contexts() may leave a freed one
 * in dd), and only while the table is not rebuilt (sci_dirty).
 */
static const struct send_context_info *alloc_table;

/* What the call may change of the tables, as the world built them. */
static struct {
	struct send_context *sc[SHIM_MAX_SEND_CONTEXTS];
	u8 allocated[SHIM_MAX_SEND_CONTEXTS];
	u8 hw_to_sw[TXE_NUM_CONTEXTS];
} before;

/*
 * What would crash the world or make upstream's behaviour undefined
 * (corpus::invariants says why of each): a type the tree does not have,
 * a node without credit return memory (cr_base[numa].va is read), a
 * SEND_CONTEXTS that gives an index a hardware context past
 * TXE_NUM_CONTEXTS (dd->hw_to_sw[] is written there).
 */
/*
 * init_send_contexts(): a table of at least one entry (the describer
 * takes an empty block for a freed one), and counts that fit in it (more
 * would write past the kcalloc'd table).
 */
bool shim_check_init_send_contexts(const struct shim_call *c)
{
	unsigned int i, sum = 0;

	for (i = 0; i < SC_MAX; i++)
		sum += (short)c->world.sc_size_count[i] > 0 ? (short)c->world.sc_size_count[i] : 0;
	return c->world.num_send_contexts >= 1 && sum <= c->world.num_send_contexts;
}

/* seqfile_dump_sci(): an entry of the world whose context it dereferences. */
bool shim_check_dump_sci(const struct shim_call *c)
{
	unsigned int i, k = c->args.seqfile_dump_sci.i;

	if (k >= c->world.num_send_contexts)
		return false;
	for (i = 0; i < c->world.sc_freed.n && i < ARRAY_SIZE(c->world.sc_freed.idx); i++)
		if (c->world.sc_freed.idx[i] == k && c->world.sc_freed.val[i])
			return false;
	return true;
}

bool shim_check_sc_alloc(const struct shim_call *c)
{
	const struct shim_args_sc_alloc *a = &c->args.sc_alloc;
	const struct shim_world *sw = &c->world;

	return a->ty < SHIM_SC_TYPE_COUNT &&
	       a->numa >= 0 && a->numa < sw->possible_nodes && a->numa < MAX_NUMNODES &&
	       c->qp.cr_base && (c->qp.cr_va & (1u << a->numa)) &&
	       sw->chip_send_contexts >= sw->num_send_contexts &&
	       sw->chip_send_contexts <= TXE_NUM_CONTEXTS;
}

/*
 * A context of the table that is not the world's (sc_alloc()'s), or a
 * member of one: sc:new[i], sc:new[i].halt_work for entry i.  -1 for
 * any other pointer.
 */
int shim_new_sc_name(const void *p, char *buf, size_t len)
{
	unsigned int i;

	if (!shim_w.sci_dirty || !alloc_table || shim_w.dd.send_contexts != alloc_table)
		return -1;
	for (i = 0; i < shim_w.nsc; i++) {
		const struct send_context *sc = shim_w.dd.send_contexts[i].sc;

		if (!sc || sc == &shim_w.sc[i] || p < (const void *)sc ||
		    p >= (const void *)(sc + 1))
			continue;
		if (p == &sc->halt_work)
			return snprintf(buf, len, "sc:new[%u].halt_work", i);
		return snprintf(buf, len, "sc:new[%u]", i);
	}
	return -1;
}

/* Where a context's hw_free points: its slot of a node's credit returns. */
static void shim_put_hw_free(struct shim_outcome *out, const volatile __le64 *p)
{
	const size_t each = sizeof(struct credit_return);
	int n;

	for (n = 0; shim_w.dd.cr_base && n < shim_w.sw->possible_nodes && n < MAX_NUMNODES; n++) {
		const char *va = (const char *)shim_w.dd.cr_base[n].va;
		size_t off = (const char *)p - va;

		if (va && (const char *)p >= va && off < TXE_NUM_CONTEXTS * each) {
			shim_put(out, " hw_free=cr_base[%d].va[%zu].cr[%zu]", n, off / each,
				 off % each / sizeof(__le64));
			return;
		}
	}
	shim_put(out, " hw_free=%s", jp((const void *)p));
}

static const char *shim_sc_type_name(u32 type)
{
	unsigned int i;

	for (i = 0; i < SHIM_SC_TYPE_COUNT; i++)
		if (sc_type_values[i] == type)
			return sc_type_names_c[i];
	return "?";
}

/* The context sc_alloc() returned: every field it set. */
static void shim_describe_new_sc(struct shim_outcome *out, const struct send_context *sc)
{
	u32 unknown;

	shim_put(out, "sc=%s", jp(sc));
	if (!sc)
		return;
	shim_put(out, " dd=%s sw_index=%u hw_context=%u type=%s node=%d group=%u credits=%u size=%u",
		 jp(sc->dd), sc->sw_index, sc->hw_context, shim_sc_type_name(sc->type),
		 sc->node, sc->group, sc->credits, sc->size);
	shim_put(out, " base_addr=piobase+0x%lx",
		 (unsigned long)((uintptr_t)sc->base_addr - (uintptr_t)SHIM_PIOBASE));
	shim_put_hw_free(out, sc->hw_free);
	shim_put(out, " credit_ctrl=0x%llx sr_size=%u", (unsigned long long)sc->credit_ctrl,
		 sc->sr_size);
	if (sc->sr)
		shim_put(out, " sr=%zu", shim_block_size(sc->sr) / sizeof(sc->sr[0]));
	else
		shim_put(out, " sr=NULL");
	shim_put(out, " buffers_allocated=%s flags=0x%x", sc->buffers_allocated ? "set" : "NULL",
		 symbolic_bits(sc->flags, &shim_sc_flags, &unknown));
	shim_put(out, " piowait=%s halt_wait=%s halt_work=%s",
		 sc->piowait.next == &sc->piowait && sc->piowait.prev == &sc->piowait ?
		 "empty" : "not-empty",
		 sc->halt_wait.head.next == &sc->halt_wait.head &&
		 sc->halt_wait.head.prev == &sc->halt_wait.head ? "empty" : "not-empty",
		 sc->halt_work.func == shim_static_sc_halted ? "sc_halted" :
		 sc->halt_work.func ? "other" : "NULL");
}

/* The entries of the tables the call changed. */
static void shim_describe_tables(struct shim_outcome *out)
{
	const struct send_context_info *sci = shim_w.dd.send_contexts;
	unsigned int i;

	for (i = 0; i < shim_w.nsc; i++) {
		if (sci[i].sc == before.sc[i] && sci[i].allocated == before.allocated[i])
			continue;
		shim_put(out, " send_contexts[%u]: sc %s->%s allocated %u->%u", i,
			 jp(before.sc[i]), jp(sci[i].sc), before.allocated[i], sci[i].allocated);
	}
	for (i = 0; i < TXE_NUM_CONTEXTS; i++)
		if (shim_w.dd.hw_to_sw[i] != before.hw_to_sw[i])
			shim_put(out, " hw_to_sw[%u]: %u->%u", i, before.hw_to_sw[i],
				 shim_w.dd.hw_to_sw[i]);
}

/* The tables as the world built them, which the call may change. */
static void shim_tables_before(void)
{
	unsigned int i;

	for (i = 0; i < shim_w.nsc; i++) {
		before.sc[i] = shim_w.dd.send_contexts[i].sc;
		before.allocated[i] = shim_w.dd.send_contexts[i].allocated;
	}
	memcpy(before.hw_to_sw, shim_w.dd.hw_to_sw, sizeof(before.hw_to_sw));
	shim_w.sci_dirty = true;
	alloc_table = shim_w.dd.send_contexts;
}

SHIM_CALL(sc_alloc)
{
	const struct shim_args_sc_alloc *a = &c->args.sc_alloc;
	struct send_context *sc;

	shim_tables_before();
	shim_begin(c, out);
	sc = sc_alloc(&shim_w.dd, sc_type_values[a->ty], a->hdrqentsize, a->numa);
	out->ret = sc ? 0 : -1;
	out->text_len = 0;
	shim_describe_new_sc(out, sc);
	shim_describe_tables(out);
	return 0;
}

/*
 * init_pervl_scs() (corpus::invariants says why of each): the module's
 * 1 to 8 VLs (chip.c refuses others; vld[] has 16 entries, VL15's
 * last), dd->kernel_send_context[] (num_send_contexts entries) long
 * enough for VL15's and two a VL and for the PIO map's kernel contexts
 * (from entry 1), a kernel context a VL (roundup_pow_of_two(0)), the
 * device's node with credit return memory and hardware contexts as for
 * sc_alloc(), and vld[] as at probe: no context (the error path frees
 * every data VL's).
 */
bool shim_check_init_pervl_scs(const struct shim_call *c)
{
	const struct shim_world *sw = &c->world;
	unsigned int i, kernel = sw->num_send_contexts;

	for (i = 0; i < sw->sc_type.n && i < ARRAY_SIZE(sw->sc_type.idx); i++)
		kernel -= sw->sc_type.idx[i] < sw->num_send_contexts &&
			  sw->sc_type.val[i] != SHIM_SC_KERNEL;
	for (i = 0; i < SHIM_NUM_VLD; i++)
		if (sw->vl_sc[i] != SHIM_NONE)
			return false;
	return sw->num_vls >= 1 && sw->num_vls <= 8 &&
	       INIT_SC_PER_VL * sw->num_vls + 1 <= sw->num_send_contexts &&
	       kernel >= sw->num_vls && kernel + 1 <= sw->num_send_contexts &&
	       sw->node >= 0 && sw->node < sw->possible_nodes && sw->node < MAX_NUMNODES &&
	       c->qp.cr_base && (c->qp.cr_va & (1u << sw->node)) &&
	       sw->chip_send_contexts >= sw->num_send_contexts &&
	       sw->chip_send_contexts <= TXE_NUM_CONTEXTS;
}

/* A context the call left in a pointer: its name, "freed" for one it made and freed. */
static const char *shim_pervl_name(const struct send_context *sc)
{
	char buf[32];

	if (sc && (sc < shim_w.sc || sc >= shim_w.sc + SHIM_MAX_SEND_CONTEXTS) &&
	    shim_new_sc_name(sc, buf, sizeof(buf)) < 0)
		return "freed";
	return jp(sc);
}

/*
 * What init_pervl_scs() left: each VL's context and MTU it changed, the
 * kernel's contexts' array, each context it made (what sc_alloc() did
 * not set: sc_alloc's own vectors judge that), the tables' entries it
 * changed and the PIO map.
 */
static void shim_describe_pervl(struct shim_outcome *out, const struct shim_world *sw)
{
	struct send_context **k = shim_w.dd.kernel_send_context;
	unsigned int i, n;
	u32 unknown;

	for (i = 0; i < SHIM_NUM_VLD; i++) {
		const struct per_vl_data *v = &shim_w.dd.vld[i];

		if (v->sc == shim_sc(sw->vl_sc[i]) && v->mtu == sw->vl_mtu[i])
			continue;
		shim_put(out, " vld[%u]: sc %s->", i, jp(shim_sc(sw->vl_sc[i])));
		shim_put(out, "%s mtu %u->%u", shim_pervl_name(v->sc), sw->vl_mtu[i], v->mtu);
	}
	if (!k || !shim_block_size(k)) {
		shim_put(out, " kernel_send_context=%s", k ? "freed" : "NULL");
	} else {
		n = shim_block_size(k) / sizeof(*k);
		shim_put(out, " kernel_send_context=%u entries:", n);
		for (i = 0; i < n; i++)
			if (k[i])
				shim_put(out, " [%u]=%s", i, shim_pervl_name(k[i]));
	}
	for (i = 0; i < shim_w.nsc; i++) {
		const struct send_context *sc = shim_w.dd.send_contexts[i].sc;

		if (!sc || sc == before.sc[i])
			continue;
		/* A context freed but left in the table (a patch's bug): not read. */
		if (!shim_block_size(sc)) {
			shim_put(out, " %s: freed", jp(sc));
			continue;
		}
		shim_put(out, " %s: credit_ctrl=0x%llx flags=0x%x", jp(sc),
			 (unsigned long long)sc->credit_ctrl,
			 symbolic_bits(sc->flags, &shim_sc_flags, &unknown));
	}
	shim_describe_tables(out);
	shim_put(out, " ");
	shim_put_pio_map(out);
}

SHIM_CALL(init_pervl_scs)
{
	const struct shim_world *sw = &c->world;

	if (!shim_heap_pio_map(c))
		return shim_refuse(out);
	shim_w.rcd0.rcvhdrqentsize = sw->rcvhdrqentsize;
	shim_w.rcd[0] = &shim_w.rcd0;
	shim_w.dd.rcd = shim_w.rcd;
	shim_tables_before();
	shim_begin(c, out);
	out->ret = init_pervl_scs(&shim_w.dd);
	out->text_len = 0;
	shim_describe_pervl(out, sw);
	shim_vl_map_grace_period(&shim_w.pio_map_heap);
	return 0;
}

/* hfi1_init_ctxt(): NULL or a context of the world (its type and hardware context). */
SHIM_CALL(hfi1_init_ctxt)
{
	struct send_context *sc = shim_sc(c->args.hfi1_init_ctxt.sc);

	shim_begin(c, out);
	hfi1_init_ctxt(sc);
	return 0;
}

SHIM_CALL(enum_to_mtu)
{
	shim_begin(c, out);
	out->ret = enum_to_mtu(c->args.enum_to_mtu.mtu);
	return 0;
}

/*
 * A table init_send_contexts() left in dd: the world's (`world`), NULL,
 * a block it freed (`freed`), or its entries in runs (consecutive
 * entries alike, each starting where the one before ends).
 */
static void shim_put_sci(struct shim_outcome *out, const struct send_context_info *t,
			 const struct send_context_info *world)
{
	size_t i, j, n;

	if (t == world || !t || !shim_block_size(t)) {
		shim_put(out, "send_contexts=%s", t == world ? "world" : t ? "freed" : "NULL");
		return;
	}
	n = shim_block_size(t) / sizeof(*t);
	shim_put(out, "send_contexts=%zu entries:", n);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && t[j].type == t[j - 1].type &&
			    t[j].credits == t[j - 1].credits &&
			    t[j].base == (u16)(t[j - 1].base + t[j - 1].credits) &&
			    t[j].allocated == t[j - 1].allocated && t[j].sc == t[j - 1].sc; j++)
			;
		shim_put(out, " [%zu-%zu] type=%u base=%u credits=%u", i, j - 1, t[i].type,
			 t[i].base, t[i].credits);
		if (t[i].allocated)
			shim_put(out, " allocated=%u", t[i].allocated);
		if (t[i].sc)
			shim_put(out, " sc=%s", jp(t[i].sc));
	}
}

/* dd->hw_to_sw as init_send_contexts() left it: as a table above, in runs of a value. */
static void shim_put_hw_to_sw(struct shim_outcome *out, const u8 *t, const u8 *world)
{
	size_t i, j, n;

	if (t == world || !t || !shim_block_size(t)) {
		shim_put(out, " hw_to_sw=%s", t == world ? "world" : t ? "freed" : "NULL");
		return;
	}
	n = shim_block_size(t);
	shim_put(out, " hw_to_sw=%zu entries:", n);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && t[j] == t[i]; j++)
			;
		shim_put(out, " [%zu-%zu]=%u", i, j - 1, t[i]);
	}
}

/* dd->sc_sizes as the world gives them, for this call. */
static void shim_set_sc_sizes(const struct shim_world *sw)
{
	unsigned int i;

	for (i = 0; i < SC_MAX; i++) {
		shim_w.dd.sc_sizes[i].count = (short)sw->sc_size_count[i];
		shim_w.dd.sc_sizes[i].size = (short)sw->sc_size_blocks[i];
	}
}

SHIM_CALL(init_send_contexts)
{
	struct send_context_info *world_sci = shim_w.dd.send_contexts;
	u8 *world_hw_to_sw = shim_w.dd.hw_to_sw;

	shim_set_sc_sizes(&c->world);
	shim_w.sci_dirty = true;
	alloc_table = NULL;
	shim_begin(c, out);
	out->ret = init_send_contexts(&shim_w.dd);
	out->text_len = 0;
	shim_put_sci(out, shim_w.dd.send_contexts, world_sci);
	shim_put_hw_to_sw(out, shim_w.dd.hw_to_sw, world_hw_to_sw);
	return 0;
}

SHIM_CALL(seqfile_dump_sci)
{
	u32 i = c->args.seqfile_dump_sci.i;
	struct seq_file sf = { .buf = out->text, .size = sizeof(out->text) };

	shim_begin(c, out);
	seqfile_dump_sci(&sf, i, &shim_w.dd.send_contexts[i]);
	out->text_len = sf.count < sf.size ? sf.count : sf.size - 1;
	return 0;
}

/*
 * pio.c's static configuration of the send contexts (sc_config_sizes, an
 * array of pio.h's struct; sc_mem_pool_config, of pio.c's two-int struct,
 * one a pool), as the build restored it: NULL when the tree's differ in
 * size (the call is refused).
 */
#define SHIM_SC_POOLS 2
static struct sc_config_sizes *shim_sc_config(void)
{
	return shim_static_data_of("sc_config_sizes", SC_MAX * sizeof(struct sc_config_sizes));
}

static int *shim_sc_pools(void)
{
	return shim_static_data_of("sc_mem_pool_config", SHIM_SC_POOLS * 2 * sizeof(int));
}

/*
 * init_sc_pools_and_sizes(): a pool's share of the blocks is computed in
 * an int (the blocks the fixed sizes leave * centipercent, at most
 * 10000): past INT_MAX / 10000 it overflows.  The fixed sizes leave more
 * than the memory when a type of fixed size counts per CPU (VL15's or the
 * user type's, as the world sets them) with fewer receive contexts than
 * kernel queues (corpus::invariants says the same).
 */
bool shim_check_init_sc_pools(const struct shim_call *c)
{
	const struct shim_world *sw = &c->world;
	long long deficit = (long long)sw->n_krcv_queues - sw->num_rcv_contexts;
	long long blocks = sw->pio_mem_size / PIO_BLOCK_SIZE;
	static const unsigned int per_cpu_types[] = { SC_VL15, SC_USER };
	unsigned int i;

	for (i = 0; sw->sc_config_set && deficit > 0 && i < ARRAY_SIZE(per_cpu_types); i++) {
		short size = (short)sw->sc_config_size[per_cpu_types[i]];

		if ((short)sw->sc_config_count[per_cpu_types[i]] == -2 && size >= 0)
			blocks += size * deficit;
	}
	return shim_sc_config() && shim_sc_pools() && blocks <= INT_MAX / 10000 + 1;
}

SHIM_CALL(init_sc_pools_and_sizes)
{
	const struct shim_world *sw = &c->world;
	struct sc_config_sizes *cs = shim_sc_config(), given[SC_MAX];
	int *pools = shim_sc_pools(), pools_given[SHIM_SC_POOLS * 2];
	unsigned int i;

	if (!cs || !pools)
		return shim_refuse(out);
	shim_set_sc_sizes(sw);
	for (i = 0; sw->sc_config_set && i < SC_MAX; i++) {
		cs[i].size = (short)sw->sc_config_size[i];
		cs[i].count = (short)sw->sc_config_count[i];
	}
	for (i = 0; sw->sc_config_set && i < SHIM_SC_POOLS; i++) {
		pools[2 * i] = (short)sw->sc_pool_centipercent[i];
		pools[2 * i + 1] = (short)sw->sc_pool_blocks[i];
	}
	memcpy(given, cs, sizeof(given));
	memcpy(pools_given, pools, sizeof(pools_given));
	shim_begin(c, out);
	out->ret = init_sc_pools_and_sizes(&shim_w.dd);
	out->text_len = 0;
	shim_put(out, "sc_sizes");
	for (i = 0; i < SC_MAX; i++)
		shim_put(out, " %s=%dx%d", sc_type_names_c[i], shim_w.dd.sc_sizes[i].count,
			 shim_w.dd.sc_sizes[i].size);
	for (i = 0; i < SC_MAX; i++) {
		if (cs[i].size != given[i].size)
			shim_put(out, " sc_config_sizes[%s].size=%d", sc_type_names_c[i], cs[i].size);
		if (cs[i].count != given[i].count)
			shim_put(out, " sc_config_sizes[%s].count=%d", sc_type_names_c[i], cs[i].count);
	}
	if (memcmp(pools, pools_given, sizeof(pools_given)))
		shim_put(out, " sc_mem_pool_config changed");
	return 0;
}
