/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/rbtree.h>. */
#ifndef _KCOMPAT_LINUX_RBTREE_H
#define _KCOMPAT_LINUX_RBTREE_H

#include <linux/kernel.h>

struct rb_node {
	unsigned long __rb_parent_color;
	struct rb_node *rb_right;
	struct rb_node *rb_left;
} __attribute__((aligned(sizeof(long))));

struct rb_root {
	struct rb_node *rb_node;
};

struct rb_root_cached {
	struct rb_root rb_root;
	struct rb_node *rb_leftmost;
};

#define RB_ROOT		(struct rb_root) { NULL, }
#define RB_ROOT_CACHED	(struct rb_root_cached) { {NULL, }, NULL }

#endif
