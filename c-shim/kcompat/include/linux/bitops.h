/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/bitops.h> (non-atomic: one thread per C world). */
#ifndef _KCOMPAT_LINUX_BITOPS_H
#define _KCOMPAT_LINUX_BITOPS_H

#include <linux/bits.h>

static inline void set_bit(long nr, volatile unsigned long *addr)
{
	addr[BIT_WORD(nr)] |= BIT_MASK(nr);
}

static inline void clear_bit(long nr, volatile unsigned long *addr)
{
	addr[BIT_WORD(nr)] &= ~BIT_MASK(nr);
}

static inline bool test_bit(long nr, const volatile unsigned long *addr)
{
	return (addr[BIT_WORD(nr)] >> (nr % BITS_PER_LONG)) & 1;
}

static inline bool test_and_set_bit(long nr, volatile unsigned long *addr)
{
	bool old = test_bit(nr, addr);

	set_bit(nr, addr);
	return old;
}

static inline bool test_and_clear_bit(long nr, volatile unsigned long *addr)
{
	bool old = test_bit(nr, addr);

	clear_bit(nr, addr);
	return old;
}

#define __set_bit(nr, addr)	set_bit(nr, addr)
#define __clear_bit(nr, addr)	clear_bit(nr, addr)
#define smp_mb__before_atomic()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_mb__after_atomic()	__atomic_thread_fence(__ATOMIC_SEQ_CST)

static inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static inline unsigned long __ffs(unsigned long word)
{
	return __builtin_ctzl(word);
}

/* Undefined when no bit is clear (as the kernel's). */
static inline unsigned long ffz(unsigned long word)
{
	return __ffs(~word);
}

static inline int ffs(int x)
{
	return __builtin_ffs(x);
}

/*
 * lib/hweight.c's software count (what the kernel falls back to without
 * POPCNT): inline, so no build calls libgcc's __popcountdi2, which a
 * world does not link; constants folded, as the kernel's __const_hweight.
 */
static inline unsigned int __kcompat_sw_hweight64(u64 w)
{
	w -= (w >> 1) & 0x5555555555555555ULL;
	w = (w & 0x3333333333333333ULL) + ((w >> 2) & 0x3333333333333333ULL);
	w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (w * 0x0101010101010101ULL) >> 56;
}

#define hweight64(w)	(__builtin_constant_p(w) ? __builtin_popcountll((u64)(w)) : \
			 __kcompat_sw_hweight64((u64)(w)))
#define hweight8(w)	hweight64((u8)(w))
#define hweight16(w)	hweight64((u16)(w))
#define hweight32(w)	hweight64((u32)(w))
#define hweight_long(w)	hweight64((unsigned long)(w))

/* Out of line in lib/find_bit.c; a boundary symbol here (c-shim/mocks). */
unsigned long _find_first_bit(const unsigned long *addr, unsigned long size);
#define find_first_bit(addr, size) _find_first_bit(addr, size)

#endif
