// SPDX-License-Identifier: GPL-2.0
/*
 * user_sde.c - sdma.c's per-CPU table of user SDMA engines (dd->sdma_rht)
 * and the calls that read it: the engine a user process's request goes
 * to, an engine's VL, what sysfs's cpu_list and debugfs's sdma_cpu_list
 * print.
 *
 * The table is built from the world for the calls that read it, in blocks
 * tracked as the world's, each node and map the size upstream allocates:
 * struct sdma_rht_node and struct sdma_rht_map_elem are sdma.c's own, so
 * the shim writes them through the tree's layout of them (boundary.toml
 * `layouts`, entries.h), never a copy of the structs.
 */
#include <linux/rhashtable.h>

#include "calls.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "a member's value is the low bytes of a u64");

/* Writes v into member m of obj (element i of an array member). */
static void shim_put_member(void *obj, const struct shim_member *m, unsigned int i, u64 v)
{
	/* Little-endian: the low bytes of v are the member's value. */
	memcpy((char *)obj + m->off + i * m->size, &v, min_t(size_t, m->size, sizeof(v)));
}

/*
 * A map of the world's table, the size sdma_set_cpu_to_sde_map()
 * allocates (TXE_NUM_SDMA_ENGINES slots): its counts and every slot.
 */
static void *shim_rht_map(const struct shim_world *sw, unsigned int i)
{
	const struct shim_member *sde = &shim_layout_sdma_rht_map_elem__sde;
	void *map = shim_alloc_tracked(shim_layout_sdma_rht_map_elem.size +
				       TXE_NUM_SDMA_ENGINES * sde->size,
				       "a map of the world's sdma_rht");
	unsigned int j;

	if (!map)
		return NULL;
	shim_put_member(map, &shim_layout_sdma_rht_map_elem__mask, 0, sw->sdma_rht.v[i].mask);
	shim_put_member(map, &shim_layout_sdma_rht_map_elem__ctr, 0, sw->sdma_rht.v[i].ctr);
	for (j = 0; j < TXE_NUM_SDMA_ENGINES && j < ARRAY_SIZE(sw->sdma_rht.v[i].sde); j++)
		shim_put_member(map, sde, j, (uintptr_t)shim_sde(sw->sdma_rht.v[i].sde[j]));
	return map;
}

/*
 * The table's parameters as the tree's layout gives sdma_rht_params: the
 * key is the node's cpu_id, the list head its rhash_head.
 */
static struct rhashtable_params shim_rht_params(void)
{
	const struct shim_member *key = &shim_layout_sdma_rht_node__cpu_id;

	return (struct rhashtable_params){
		.key_len = key->size,
		.key_offset = key->off,
		.head_offset = shim_layout_sdma_rht_node__node.off,
	};
}

/*
 * The world's table (NULL when it has none) published in blocks: the
 * table with its bucket array (rhashtable_init()'s), a node per CPU with
 * its key, a map per CPU and VL (the world lists them by CPU); false
 * when a block could not be had, or for a scenario's later step (the call
 * is refused).
 */
static bool shim_heap_sdma_rht(const struct shim_call *c)
{
	const struct shim_world *sw = &c->world;
	const struct shim_member *key = &shim_layout_sdma_rht_node__cpu_id;
	const struct rhashtable_params p = shim_rht_params();
	struct rhashtable *ht;
	struct rhash_head *head = NULL;
	void *node = NULL;
	unsigned int i;

	/* Blocks of the call's own: a later step of a scenario builds no world. */
	if (c->carry & SHIM_STEP_CARRIED)
		return false;
	shim_w.dd.sdma_rht = NULL;
	if (!sw->sdma_rht_set)
		return true;
	ht = shim_alloc_tracked(sizeof(*ht), "the world's sdma_rht");
	if (!ht || rhashtable_init(ht, &p))
		return false;
	for (i = 0; i < sw->sdma_rht.n && i < ARRAY_SIZE(sw->sdma_rht.v); i++) {
		void *map;

		if (!node || i == 0 || sw->sdma_rht.v[i].cpu != sw->sdma_rht.v[i - 1].cpu) {
			node = shim_alloc_tracked(shim_layout_sdma_rht_node.size,
						  "a node of the world's sdma_rht");
			if (!node)
				return false;
			shim_put_member(node, key, 0, sw->sdma_rht.v[i].cpu);
			/* rhashtable_insert_fast(): on the table's list. */
			head = (struct rhash_head *)((char *)node + p.head_offset);
			head->next = ht->list;
			ht->list = head;
			atomic_inc(&ht->nelems);
		}
		map = shim_rht_map(sw, i);
		if (!map)
			return false;
		shim_put_member(node, &shim_layout_sdma_rht_node__map, sw->sdma_rht.v[i].vl,
				(uintptr_t)map);
	}
	shim_w.dd.sdma_rht = ht;
	return true;
}

SHIM_CALL(sdma_engine_get_vl)
{
	shim_begin(c, out);
	out->ret = sdma_engine_get_vl(shim_sde(c->args.sdma_engine_get_vl.sde));
	return 0;
}

SHIM_CALL(sdma_select_user_engine)
{
	const struct shim_args_sdma_select_user_engine *a = &c->args.sdma_select_user_engine;

	if (!shim_heap_sdma_rht(c))
		return shim_refuse(out);
	shim_begin(c, out);
	out->sdma_engine = shim_sde_index(sdma_select_user_engine(&shim_w.dd, a->selector, a->vl));
	return 0;
}

/* The page sysfs hands a show function: zeroed, page-aligned. */
static char shim_sysfs_page[PAGE_SIZE] __aligned(PAGE_SIZE);

SHIM_CALL(sdma_get_cpu_to_sde_map)
{
	ssize_t n;

	memset(shim_sysfs_page, 0, sizeof(shim_sysfs_page));
	shim_begin(c, out);
	n = sdma_get_cpu_to_sde_map(shim_sde(c->args.sdma_get_cpu_to_sde_map.sde),
				    shim_sysfs_page);
	out->ret = n;
	out->text_len = strnlen(shim_sysfs_page, sizeof(out->text) - 1);
	memcpy(out->text, shim_sysfs_page, out->text_len);
	out->text[out->text_len] = '\0';
	return 0;
}

SHIM_CALL(sdma_seqfile_dump_cpu_list)
{
	struct seq_file sf = { .buf = out->text, .size = sizeof(out->text) };

	if (!shim_heap_sdma_rht(c))
		return shim_refuse(out);
	shim_begin(c, out);
	sdma_seqfile_dump_cpu_list(&sf, &shim_w.dd, c->args.sdma_seqfile_dump_cpu_list.cpuid);
	out->text_len = sf.count < sf.size ? sf.count : sf.size - 1;
	return 0;
}

/* Reads member m of obj (element i of an array member). */
static u64 shim_get_member(const void *obj, const struct shim_member *m, unsigned int i)
{
	u64 v = 0;

	memcpy(&v, (const char *)obj + m->off + i * m->size, min_t(size_t, m->size, sizeof(v)));
	return v;
}

/*
 * The table as the call left it: each CPU's node, lowest first, with each
 * map it holds (`vlV={ctr mask [slots up to the last engine]}`), a slot
 * that is no engine of the world by its symbolic name; a node or map
 * that is no block the world tracks is named, not followed.
 */
static void shim_describe_sdma_rht(struct shim_outcome *out)
{
	const struct shim_member *sde = &shim_layout_sdma_rht_map_elem__sde;
	const struct rhashtable_params p = shim_rht_params();
	unsigned long cpu;
	unsigned int vl, j, used;
	bool any = false;

	shim_put(out, "sdma_rht:");
	if (!shim_w.dd.sdma_rht) {
		shim_put(out, " NULL");
		return;
	}
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		void *node = rhashtable_lookup(shim_w.dd.sdma_rht, &cpu, p);

		if (!node)
			continue;
		any = true;
		shim_put(out, " cpu%lu", cpu);
		for (vl = 0; vl < HFI1_MAX_VLS_SUPPORTED; vl++) {
			void *map = (void *)(uintptr_t)
				shim_get_member(node, &shim_layout_sdma_rht_node__map, vl);

			if (!map)
				continue;
			if (shim_block_size(map) < shim_layout_sdma_rht_map_elem.size +
						    TXE_NUM_SDMA_ENGINES * sde->size) {
				shim_put(out, " vl%u=%s", vl, jp(map));
				continue;
			}
			for (used = TXE_NUM_SDMA_ENGINES; used &&
			     !shim_get_member(map, sde, used - 1); used--)
				;
			shim_put(out, " vl%u={ctr=%llu mask=%llu [", vl,
				 shim_get_member(map, &shim_layout_sdma_rht_map_elem__ctr, 0),
				 shim_get_member(map, &shim_layout_sdma_rht_map_elem__mask, 0));
			for (j = 0; j < used; j++) {
				void *e = (void *)(uintptr_t)shim_get_member(map, sde, j);
				int idx = shim_sde_index(e);

				if (j)
					shim_put(out, ",");
				if (e && idx >= 0)
					shim_put(out, "%d", idx);
				else
					shim_put(out, "%s", e ? jp(e) : "NULL");
			}
			shim_put(out, "]}");
		}
	}
	if (!any)
		shim_put(out, " empty");
}

SHIM_CALL(sdma_set_cpu_to_sde_map)
{
	const struct shim_args_sdma_set_cpu_to_sde_map *a = &c->args.sdma_set_cpu_to_sde_map;
	char buf[sizeof(a->buf) + 1];

	if (!shim_heap_sdma_rht(c))
		return shim_refuse(out);
	memcpy(buf, a->buf, sizeof(a->buf));
	buf[sizeof(a->buf)] = '\0';
	shim_begin(c, out);
	out->ret = sdma_set_cpu_to_sde_map(shim_sde(a->sde), buf, strnlen(buf, sizeof(buf)));
	shim_describe_sdma_rht(out);
	return 0;
}

/*
 * What would crash the world or read past upstream's blocks
 * (corpus::invariants::user_sde says why of each): the table's maps and
 * their engines, the task's CPUs, an engine argument, a lookup in a table
 * there is not, a VL past a node's maps.
 */
/*
 * Every map of the engine's VL on a CPU its cpu_mask lacks has room for
 * it (sdma_set_cpu_to_sde_map() writes sde[ctr] of 16 slots there).
 */
static bool shim_user_sde_room(const struct shim_call *c)
{
	const struct shim_world *sw = &c->world;
	int sde = c->args.sdma_set_cpu_to_sde_map.sde;
	u64 mask = 0;
	unsigned int i, vl;

	if (!sw->sdma_map.present)
		return true;
	vl = sde < sw->sdma_engine_to_vl.n ? sw->sdma_engine_to_vl.v[sde] : 0;
	for (i = 0; i < c->engines.sde_cpu_mask.n && i < ARRAY_SIZE(c->engines.sde_cpu_mask.idx); i++)
		if (c->engines.sde_cpu_mask.idx[i] == sde)
			mask = c->engines.sde_cpu_mask.val[i];
	for (i = 0; i < sw->sdma_rht.n; i++)
		if (sw->sdma_rht.v[i].vl == vl && !(mask & BIT_ULL(sw->sdma_rht.v[i].cpu)) &&
		    sw->sdma_rht.v[i].ctr >= TXE_NUM_SDMA_ENGINES)
			return false;
	return true;
}

bool shim_check_user_sde(const struct shim_call *c)
{
	const struct shim_world *sw = &c->world;
	bool node = false;
	unsigned int i, j;

	if (sw->sdma_rht.n > ARRAY_SIZE(sw->sdma_rht.v) || (!sw->sdma_rht_set && sw->sdma_rht.n) ||
	    sw->this_cpu >= NR_CPUS || sw->nr_cpus_allowed < 1 || sw->nr_cpus_allowed > NR_CPUS ||
	    sw->sdma_engine_to_vl.n > sw->sdma_cpus.n)
		return false;
	for (i = 0; i < sw->sdma_rht.n; i++) {
		const typeof(sw->sdma_rht.v[0]) *m = &sw->sdma_rht.v[i];

		if (m->cpu >= NR_CPUS || m->vl >= HFI1_MAX_VLS_SUPPORTED ||
		    m->mask >= TXE_NUM_SDMA_ENGINES || m->ctr > TXE_NUM_SDMA_ENGINES)
			return false;
		if (i && (m->cpu < m[-1].cpu || (m->cpu == m[-1].cpu && m->vl <= m[-1].vl)))
			return false;
		for (j = 0; j < ARRAY_SIZE(m->sde); j++)
			if (m->sde[j] < SHIM_NONE || m->sde[j] >= sw->sdma_cpus.n)
				return false;
		node |= m->cpu == sw->this_cpu;
	}
	switch (c->fn) {
	case SHIM_FN_SDMA_SELECT_USER_ENGINE:
		return sw->nr_cpus_allowed != 1 ||
		       (sw->sdma_rht_set &&
			(!node || c->args.sdma_select_user_engine.vl < HFI1_MAX_VLS_SUPPORTED));
	case SHIM_FN_SDMA_SEQFILE_DUMP_CPU_LIST:
		return sw->sdma_rht_set;
	case SHIM_FN_SDMA_ENGINE_GET_VL:
		return c->args.sdma_engine_get_vl.sde < sw->sdma_cpus.n;
	case SHIM_FN_SDMA_GET_CPU_TO_SDE_MAP:
		return c->args.sdma_get_cpu_to_sde_map.sde < sw->sdma_cpus.n;
	case SHIM_FN_SDMA_SET_CPU_TO_SDE_MAP:
		return c->args.sdma_set_cpu_to_sde_map.sde < sw->sdma_cpus.n && sw->sdma_rht_set &&
		       shim_user_sde_room(c);
	default:
		return true;
	}
}
