/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/completion.h>. */
#ifndef _KCOMPAT_LINUX_COMPLETION_H
#define _KCOMPAT_LINUX_COMPLETION_H

#include <linux/wait.h>

struct completion {
	unsigned int done;
	struct wait_queue_head wait;
};

#define init_completion(x) ((x)->done = 0)
#define complete(x) ((x)->done++)
#define wait_for_completion(x) WARN_ON(!(x)->done)

#endif
