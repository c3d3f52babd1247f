/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/compiler_types.h> (force-included). */
#ifndef _KCOMPAT_LINUX_COMPILER_TYPES_H
#define _KCOMPAT_LINUX_COMPILER_TYPES_H

#define __user
#define __kernel
#define __iomem
#define __rcu
#define __percpu
#define __force
#define __must_check	__attribute__((__warn_unused_result__))
#define __bitwise
#define __private
#define __acquires(x)
#define __releases(x)
#define __must_hold(x)
#define __cond_acquires(x)
#define __acquire(x)	((void)0)
#define __release(x)	((void)0)
#define __cond_lock(x, c) (c)
#define __context__(...)

#define __always_inline		inline __attribute__((__always_inline__))
#define noinline		__attribute__((__noinline__))
#define __noreturn		__attribute__((__noreturn__))
#define __packed		__attribute__((__packed__))
#define __aligned(x)		__attribute__((__aligned__(x)))
#define __maybe_unused		__attribute__((__unused__))
#define __always_unused		__attribute__((__unused__))
#define __used			__attribute__((__used__))
#define __weak			__attribute__((__weak__))
#define __cold			__attribute__((__cold__))
#define __pure			__attribute__((__pure__))
#define __attribute_const__	__attribute__((__const__))
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))
#define __scanf(a, b)		__attribute__((__format__(scanf, a, b)))
#define __section(s)		__attribute__((__section__(s)))
#define __malloc		__attribute__((__malloc__))
#define __alloc_size(x, ...)
#define __realloc_size(x, ...)
#define __counted_by(m)
#define __counted_by_le(m)
#define __counted_by_be(m)
#define __nonstring
#define __randomize_layout
#define __no_randomize_layout
#define ____cacheline_aligned	__attribute__((__aligned__(64)))
#define ____cacheline_aligned_in_smp ____cacheline_aligned
#define __cacheline_aligned	____cacheline_aligned
#define __cacheline_aligned_in_smp ____cacheline_aligned
#define ____cacheline_internodealigned_in_smp ____cacheline_aligned
#define __read_mostly
#define __ro_after_init
#define __init
#define __exit
#define __initdata
#define __exitdata
#define __devinit
#define __iomem
#define __latent_entropy
#define __no_kcsan
#define notrace
#define __visible
#define __assume_aligned(a, ...)
#define __nocfi
#define __diag_push()
#define __diag_pop()
#define __diag_ignore_all(o, c)
#define __native_word(t) \
	(sizeof(t) == sizeof(char) || sizeof(t) == sizeof(short) || \
	 sizeof(t) == sizeof(int) || sizeof(t) == sizeof(long))

#define fallthrough		__attribute__((__fallthrough__))

#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)

#define __same_type(a, b)	__builtin_types_compatible_p(typeof(a), typeof(b))
#define __unqual_scalar_typeof(x) typeof(x)
#define __must_be_array(a)	0

#define __stringify_1(x...)	#x
#define __stringify(x...)	__stringify_1(x)
/*
 * kcompat's own: where a macro is used, as "FILE:LINE" (the extracted
 * code's are the tree's, by its #line directives), for a leak's report.
 * In a section of its own, which cworld/reach.rs does not compare: a
 * patch that moves the line changes no function's code.
 */
#define __kcompat_site ({						\
	static const char __kcompat_site_at[]				\
		__attribute__((section(".kcompat_site"))) =		\
		__FILE__ ":" __stringify(__LINE__);			\
	__kcompat_site_at;						\
})
#define ___PASTE(a, b)		a##b
#define __PASTE(a, b)		___PASTE(a, b)
#define __UNIQUE_ID(prefix)	__PASTE(__PASTE(__UNIQUE_ID_, prefix), __COUNTER__)

#endif
