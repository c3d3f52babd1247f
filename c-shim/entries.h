/* SPDX-License-Identifier: GPL-2.0 */
/*
 * entries.h - the static functions of upstream the shim calls
 * (c-shim/boundary.toml `entries`): the extracted unit exports each as a
 * constant pointer shim_static_NAME (harness/src/cworld/build/compile.rs)
 * and includes this header after the tree's headers, so a tree whose
 * function has another type does not compile.  And the table of its static data (`data`), and
 * the prototypes of what the tree declares only in a configuration the
 * worlds do not build.
 */
#ifndef HFI1_CONFORMANCE_ENTRIES_H
#define HFI1_CONFORMANCE_ENTRIES_H

struct sdma_engine;
struct work_struct;
struct timer_list;
enum sdma_events;
enum sdma_states;

extern void (*const shim_static_sdma_desc_avail)(struct sdma_engine *sde, uint avail);
extern void (*const shim_static_sdma_flush)(struct sdma_engine *sde);
extern void (*const shim_static_sdma_field_flush)(struct work_struct *work);
extern void (*const shim_static_sdma_process_event)(struct sdma_engine *sde,
						    enum sdma_events event);
/*
 * The engine's clean-up tasks' handlers take what the engine's members
 * are: tasklets, or BH work items in a tree converted to the BH
 * workqueues (the handlers' and the members' types change together).
 */
#define SHIM_SDE_TASK(m) __typeof__(((struct sdma_engine *)0)->m)
extern void (*const shim_static_sdma_sw_clean_up_task)(SHIM_SDE_TASK(sdma_sw_clean_up_task) *t);
extern void (*const shim_static_sdma_hw_clean_up_task)(SHIM_SDE_TASK(sdma_hw_clean_up_task) *t);
extern void (*const shim_static_sdma_err_halt_wait)(struct work_struct *work);
extern void (*const shim_static_sdma_err_progress_check)(struct timer_list *t);
extern void (*const shim_static_sc_piobufavail)(struct send_context *sc);
extern void (*const shim_static_sc_wait_for_packet_egress)(struct send_context *sc, int pause);
extern void (*const shim_static_verbs_pio_complete)(void *arg, int code);
extern void (*const shim_static_sc_halted)(struct work_struct *work);
extern void (*const shim_static_set_sdma_integrity)(struct sdma_engine *sde);
extern void (*const shim_static_init_sdma_regs)(struct sdma_engine *sde, u32 credits,
						uint idle_cnt);
extern const char *(*const shim_static_sdma_state_name)(enum sdma_states state);
extern void (*const shim_static_sdma_wait_for_packet_egress)(struct sdma_engine *sde, int pause);

/*
 * The file-static data of upstream an upstream function writes or a
 * vector sets (boundary.toml `data`), ended by a NULL name: the shim
 * keeps each one's initial bytes and restores them before every call.
 */
struct shim_static_data {
	const char *name;
	void *addr;
	unsigned long size;
};

extern const struct shim_static_data shim_static_data[];

/*
 * The layout of a struct of upstream's own file the shim builds or reads
 * (boundary.toml `layouts`): shim_layout_TYPE is its size,
 * shim_layout_TYPE__MEMBER a member's offset and size (of one element,
 * for an array), from the tree's definition.
 */
struct shim_member {
	unsigned long off;
	unsigned long size;
};

/* sdma.c's per-CPU table of user engines (user_sde.c). */
extern const struct shim_member shim_layout_sdma_rht_node;
extern const struct shim_member shim_layout_sdma_rht_node__cpu_id;
extern const struct shim_member shim_layout_sdma_rht_node__map;
extern const struct shim_member shim_layout_sdma_rht_node__node;
extern const struct shim_member shim_layout_sdma_rht_map_elem;
extern const struct shim_member shim_layout_sdma_rht_map_elem__mask;
extern const struct shim_member shim_layout_sdma_rht_map_elem__ctr;
extern const struct shim_member shim_layout_sdma_rht_map_elem__sde;

/*
 * A function sdma.h declares only with CONFIG_SDMA_VERBOSITY, which the
 * extracted unit defines and the shim calls (sdma_dumpstate).
 */
void sdma_dumpstate(struct sdma_engine *sde);

#endif
