/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/uidgid.h>. */
#ifndef _KCOMPAT_LINUX_UIDGID_H
#define _KCOMPAT_LINUX_UIDGID_H

#include <linux/types.h>

typedef struct {
	uid_t val;
} kuid_t;

typedef struct {
	gid_t val;
} kgid_t;

struct user_namespace;
extern struct user_namespace init_user_ns;

static inline uid_t __kuid_val(kuid_t uid) { return uid.val; }
static inline bool uid_eq(kuid_t left, kuid_t right) { return left.val == right.val; }
static inline uid_t from_kuid(struct user_namespace *to, kuid_t kuid) { return kuid.val; }

#endif
