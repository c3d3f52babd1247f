/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/atomic.h>; the compiler's __atomic builtins. */
#ifndef _KCOMPAT_LINUX_ATOMIC_H
#define _KCOMPAT_LINUX_ATOMIC_H

#include <linux/types.h>
#include <linux/compiler.h>

#define ATOMIC_INIT(i)		{ (i) }
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define mb()			smp_mb()
#define rmb()			smp_rmb()
#define wmb()			smp_wmb()
#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define smp_store_mb(var, value) do { WRITE_ONCE(var, value); smp_mb(); } while (0)

#define __KCOMPAT_ATOMIC_OPS(pfx, t, v_t)				\
static inline t pfx##_read(const v_t *v)				\
{ return __atomic_load_n(&v->counter, __ATOMIC_RELAXED); }		\
static inline void pfx##_set(v_t *v, t i)				\
{ __atomic_store_n(&v->counter, i, __ATOMIC_RELAXED); }		\
static inline void pfx##_add(t i, v_t *v)				\
{ __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }		\
static inline void pfx##_sub(t i, v_t *v)				\
{ __atomic_sub_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }		\
static inline void pfx##_inc(v_t *v) { pfx##_add(1, v); }		\
static inline void pfx##_dec(v_t *v) { pfx##_sub(1, v); }		\
static inline t pfx##_add_return(t i, v_t *v)				\
{ return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline t pfx##_sub_return(t i, v_t *v)				\
{ return __atomic_sub_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline t pfx##_inc_return(v_t *v) { return pfx##_add_return(1, v); } \
static inline t pfx##_dec_return(v_t *v) { return pfx##_sub_return(1, v); } \
static inline bool pfx##_dec_and_test(v_t *v)				\
{ return pfx##_sub_return(1, v) == 0; }				\
static inline bool pfx##_inc_not_zero(v_t *v)				\
{									\
	t c = pfx##_read(v);						\
	do {								\
		if (!c)							\
			return false;					\
	} while (!__atomic_compare_exchange_n(&v->counter, &c, c + 1,	\
		false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));		\
	return true;							\
}									\
static inline t pfx##_cmpxchg(v_t *v, t old, t new)			\
{									\
	__atomic_compare_exchange_n(&v->counter, &old, new, false,	\
		__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);			\
	return old;							\
}									\
static inline t pfx##_xchg(v_t *v, t new)				\
{ return __atomic_exchange_n(&v->counter, new, __ATOMIC_SEQ_CST); }	\
static inline bool pfx##_try_cmpxchg(v_t *v, t *old, t new)		\
{									\
	return __atomic_compare_exchange_n(&v->counter, old, new, false, \
		__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);			\
}

__KCOMPAT_ATOMIC_OPS(atomic, int, atomic_t)
__KCOMPAT_ATOMIC_OPS(atomic64, s64, atomic64_t)

#define atomic_long_read	atomic64_read
#define atomic_long_set		atomic64_set
#define atomic_long_inc		atomic64_inc
#define atomic_long_dec		atomic64_dec

#define cmpxchg(ptr, o, n) ({						\
	typeof(*(ptr)) __o = (o);					\
	__atomic_compare_exchange_n(ptr, &__o, n, false,		\
		__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);			\
	__o; })
/* cmpxchg() that says whether it swapped, and on failure what it found. */
#define try_cmpxchg(ptr, oldp, n)					\
	__atomic_compare_exchange_n(ptr, oldp, n, false,		\
		__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define xchg(ptr, v)	__atomic_exchange_n(ptr, v, __ATOMIC_SEQ_CST)

#endif
