// SPDX-License-Identifier: GPL-2.0
/*
 * vl_maps.c - the calls that rebuild a VL map (sdma_map_init), and the
 * text of the map they leave published.
 *
 * The world's map is static storage (build.c); a call that replaces it
 * gets it in blocks of its own first, tracked as the world's, as the
 * driver's map is kzalloc'd: the RCU callback that frees the replaced map
 * then frees blocks (mocks/rcu.c runs it as the call returns).
 */
#include "calls.h"

/*
 * The world's SDMA map, if any, copied into blocks: the map with one slot
 * per element the world allocated (actual_vls, what sdma_map_free()
 * walks), each allocated element a block of its entries.
 */
static struct sdma_vl_map *shim_heap_sdma_map(unsigned int nelems)
{
	const struct sdma_vl_map *w = rcu_dereference_raw(shim_w.dd.sdma_map);
	const size_t esz = sizeof(struct sdma_map_elem) +
			   SHIM_ELEM_MAX_ENTRIES * sizeof(struct sdma_engine *);
	struct sdma_vl_map *m;
	unsigned int i;

	if (!w)
		return NULL;
	m = shim_alloc_tracked(sizeof(*m) + nelems * sizeof(m->map[0]), "the world's sdma_map");
	if (!m)
		return NULL;
	memcpy(m->engine_to_vl, w->engine_to_vl, sizeof(m->engine_to_vl));
	m->mask = w->mask;
	m->actual_vls = nelems;
	m->vls = nelems;
	for (i = 0; i < nelems; i++) {
		if (!w->map[i])
			continue;
		m->map[i] = shim_alloc_tracked(esz, "an element of the world's sdma_map");
		if (m->map[i])
			memcpy(m->map[i], w->map[i], esz);
	}
	return m;
}

/* Up to how many pointers of an array at `off` in block `p` it holds. */
static size_t shim_block_room(const void *p, size_t off, size_t each)
{
	size_t size = shim_block_size(p);

	return size > off ? (size - off) / each : 0;
}

/*
 * The SDMA map published: "sdma_map=NULL", "sdma_map=world" (the world's,
 * not replaced), or the map upstream built, each element up to what its
 * block holds (a mask past it is not followed) and an element that is an
 * earlier one again by its index.
 */
static void shim_describe_sdma_map(struct shim_outcome *out)
{
	const struct sdma_vl_map *m = rcu_dereference_raw(shim_w.dd.sdma_map);
	char *t = out->text;
	size_t room = sizeof(out->text), len = 0;
	unsigned int i, j, k, nmap, nent;

#define SHIM_PUT(...) do {						\
	int n_ = snprintf(t + len, room - len, __VA_ARGS__);		\
	len = n_ < 0 ? len : len + n_ >= room ? room - 1 : len + n_;	\
} while (0)
	if (!m || m == shim_w.sdma_map_heap) {
		SHIM_PUT("sdma_map=%s", m ? "world" : "NULL");
		goto done;
	}
	SHIM_PUT("sdma_map: actual_vls=%u vls=%u mask=%u engine_to_vl=", m->actual_vls, m->vls,
		 m->mask);
	for (i = 0; i < ARRAY_SIZE(m->engine_to_vl); i++)
		SHIM_PUT("%s%d", i ? "," : "", m->engine_to_vl[i]);
	nmap = min_t(size_t, m->vls, shim_block_room(m, offsetof(struct sdma_vl_map, map),
						      sizeof(m->map[0])));
	for (i = 0; i < nmap; i++) {
		const struct sdma_map_elem *e = m->map[i];

		for (k = 0; k < i && m->map[k] != e; k++)
			;
		if (k < i) {
			SHIM_PUT(" map[%u]=map[%u]", i, k);
			continue;
		}
		if (!e || !shim_block_size(e)) {
			SHIM_PUT(" map[%u]=%s", i, jp(e));
			continue;
		}
		SHIM_PUT(" map[%u]={mask=%u:", i, e->mask);
		nent = min_t(size_t, (size_t)e->mask + 1,
			     shim_block_room(e, offsetof(struct sdma_map_elem, sde),
					     sizeof(e->sde[0])));
		for (j = 0; j < nent; j++)
			SHIM_PUT(" %s", jp(e->sde[j]));
		SHIM_PUT("}");
	}
#undef SHIM_PUT
done:
	out->text_len = len;
}

SHIM_CALL(sdma_map_init)
{
	const struct shim_args_sdma_map_init *a = &c->args.sdma_map_init;
	u8 vl_engines[SHIM_ELEM_MAX_ENTRIES];
	int ret;

	shim_w.sdma_map_heap = shim_heap_sdma_map(c->world.sdma_map.nelems);
	if (c->world.sdma_map.present && !shim_w.sdma_map_heap)
		return shim_refuse(out);
	RCU_INIT_POINTER(shim_w.dd.sdma_map, shim_w.sdma_map_heap);
	memcpy(vl_engines, a->vl_engines.v, sizeof(vl_engines));
	shim_begin(c, out);
	ret = sdma_map_init(&shim_w.dd, a->port, a->num_vls,
			    a->vl_engines.n ? vl_engines : NULL);
	out->ret = ret;
	shim_describe_sdma_map(out);
	return 0;
}
