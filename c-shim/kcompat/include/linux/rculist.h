/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/rculist.h>. */
#ifndef _KCOMPAT_LINUX_RCULIST_H
#define _KCOMPAT_LINUX_RCULIST_H

#include <linux/list.h>
#include <linux/rcupdate.h>

#define list_add_rcu(n, h)		list_add(n, h)
#define list_add_tail_rcu(n, h)		list_add_tail(n, h)
#define list_del_rcu(e)			list_del(e)
#define list_for_each_entry_rcu(pos, head, member, cond...) \
	list_for_each_entry(pos, head, member)

#endif
