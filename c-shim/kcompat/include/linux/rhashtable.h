/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcompat: stands in for <linux/rhashtable.h> (lib/rhashtable.c): what
 * sdma.c's probe and teardown use of the table, and its lookups.  A table
 * is a list of its objects' heads, a lookup a walk of it comparing the
 * key at the caller's parameters' offset and length (as the kernel's
 * inline lookup takes them), an insert a push on it, a remove an unlink; rhashtable_init() checks the parameters as the
 * kernel's does and takes a bucket table, which
 * rhashtable_free_and_destroy() gives back: a block the leak check
 * tracks, not failslab (the kernel falls back to a __GFP_NOFAIL one, so
 * it cannot fail there).  Destroying a table never initialised is
 * journalled as the bug it is.
 */
#ifndef _KCOMPAT_LINUX_RHASHTABLE_H
#define _KCOMPAT_LINUX_RHASHTABLE_H

#include <linux/kernel.h>
#include <linux/atomic.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/rcupdate.h>

struct rhash_head {
	struct rhash_head *next;
};

struct rhashtable_compare_arg;
typedef u32 (*rht_hashfn_t)(const void *data, u32 len, u32 seed);
typedef u32 (*rht_obj_hashfn_t)(const void *data, u32 len, u32 seed);
typedef int (*rht_obj_cmpfn_t)(struct rhashtable_compare_arg *arg, const void *obj);

struct rhashtable_params {
	u16 nelem_hint;
	u16 key_len;
	u16 key_offset;
	u16 head_offset;
	unsigned int max_size;
	u16 min_size;
	bool automatic_shrinking;
	rht_hashfn_t hashfn;
	rht_obj_hashfn_t obj_hashfn;
	rht_obj_cmpfn_t obj_cmpfn;
};

/* lib/rhashtable.c's bucket table; boundary symbols (c-shim/mocks/alloc.c). */
void *__kcompat_rht_table_alloc(void);
void __kcompat_rht_table_free(void *tbl);

struct rhashtable {
	void *tbl;
	struct rhash_head *list;
	unsigned int key_len;
	struct rhashtable_params p;
	atomic_t nelems;
};

static inline int rhashtable_init(struct rhashtable *ht, const struct rhashtable_params *params)
{
	if ((!params->key_len && !params->obj_hashfn) ||
	    (params->obj_hashfn && !params->obj_cmpfn))
		return -EINVAL;
	memset(ht, 0, sizeof(*ht));
	memcpy(&ht->p, params, sizeof(*params));
	ht->key_len = params->key_len;
	atomic_set(&ht->nelems, 0);
	ht->tbl = __kcompat_rht_table_alloc();
	return 0;
}

/* The object whose key is `key`, or NULL (under RCU, or its caller's lock). */
static inline void *rhashtable_lookup(struct rhashtable *ht, const void *key,
				      const struct rhashtable_params params)
{
	struct rhash_head *he;

	for (he = ht->list; he; he = he->next) {
		const char *obj = (const char *)he - params.head_offset;

		if (!memcmp(obj + params.key_offset, key, params.key_len))
			return (void *)obj;
	}
	return NULL;
}

static inline void *rhashtable_lookup_fast(struct rhashtable *ht, const void *key,
					   const struct rhashtable_params params)
{
	void *obj;

	rcu_read_lock();
	obj = rhashtable_lookup(ht, key, params);
	rcu_read_unlock();
	return obj;
}

/*
 * The object on the table, its key there already or not (the kernel's
 * insert checks no key: rhashtable_lookup_insert_fast() does); it fails
 * only growing the bucket table, which a table of at most NR_CPUS objects
 * never needs here.
 */
static inline int rhashtable_insert_fast(struct rhashtable *ht, struct rhash_head *obj,
					 const struct rhashtable_params params)
{
	obj->next = ht->list;
	ht->list = obj;
	atomic_inc(&ht->nelems);
	return 0;
}

/* The object off the table: -ENOENT when it is not on it. */
static inline int rhashtable_remove_fast(struct rhashtable *ht, struct rhash_head *obj,
					 const struct rhashtable_params params)
{
	struct rhash_head **pp;

	for (pp = &ht->list; *pp; pp = &(*pp)->next) {
		if (*pp == obj) {
			*pp = obj->next;
			atomic_dec(&ht->nelems);
			return 0;
		}
	}
	return -ENOENT;
}

/* Every object freed by free_fn (if given), then the table emptied. */
static inline void rhashtable_free_and_destroy(struct rhashtable *ht,
					       void (*free_fn)(void *ptr, void *arg), void *arg)
{
	struct rhash_head *he, *next;

	__kcompat_rht_table_free(ht->tbl);
	ht->tbl = NULL;
	for (he = ht->list; he; he = next) {
		next = he->next;
		if (free_fn)
			free_fn((char *)he - ht->p.head_offset, arg);
	}
	ht->list = NULL;
	atomic_set(&ht->nelems, 0);
}

#endif
