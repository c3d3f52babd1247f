/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcompat: stands in for <linux/tracepoint.h>.
 *
 * Tracepoints are part of the driver's observable interface (ftrace,
 * perf), so every trace_<name>() records its call: the name and each
 * argument (a string quoted, another pointer as the world's name for it,
 * anything else as the integer it holds) go to __kcompat_trace(), which
 * journals them as
 * "trace <name>(arg, arg)".  trace_<name>_enabled() is always false (no
 * tracer is attached: the driver's own formatting code does not run);
 * event classes and enum definitions expand to nothing.  The driver's
 * trace_*.h compile untouched.
 */
#ifndef _KCOMPAT_LINUX_TRACEPOINT_H
#define _KCOMPAT_LINUX_TRACEPOINT_H

#include <linux/kernel.h>

#define PARAMS(args...) args
#define TP_PROTO(args...) args
#define TP_ARGS(args...) args
#define TP_CONDITION(args...) args

/* One argument as the recorder sees it: where it is, its size, its kind. */
enum __kcompat_trace_kind {
	__KCOMPAT_TRACE_INT,
	__KCOMPAT_TRACE_POINTER,
	__KCOMPAT_TRACE_STRING,
};

struct __kcompat_trace_arg {
	const void *at;
	unsigned short size;
	unsigned char kind;
};

void __kcompat_trace(const char *name, int n, const struct __kcompat_trace_arg *args);

/* __builtin_classify_type(): 5 is a pointer (GCC and Clang). */
#define __KCOMPAT_TRACE_KIND(x)						\
	_Generic((x), char *: __KCOMPAT_TRACE_STRING,			\
		 const char *: __KCOMPAT_TRACE_STRING,			\
		 default: __builtin_classify_type(x) == 5 ?		\
			  __KCOMPAT_TRACE_POINTER : __KCOMPAT_TRACE_INT)
#define __KCOMPAT_TRACE_ARG(x) { &(x), sizeof(x), __KCOMPAT_TRACE_KIND(x) },
#define __KCOMPAT_EACH_1(m, a) m(a)
#define __KCOMPAT_EACH_2(m, a, ...) m(a) __KCOMPAT_EACH_1(m, __VA_ARGS__)
#define __KCOMPAT_EACH_3(m, a, ...) m(a) __KCOMPAT_EACH_2(m, __VA_ARGS__)
#define __KCOMPAT_EACH_4(m, a, ...) m(a) __KCOMPAT_EACH_3(m, __VA_ARGS__)
#define __KCOMPAT_EACH_5(m, a, ...) m(a) __KCOMPAT_EACH_4(m, __VA_ARGS__)
#define __KCOMPAT_EACH_6(m, a, ...) m(a) __KCOMPAT_EACH_5(m, __VA_ARGS__)
#define __KCOMPAT_EACH_7(m, a, ...) m(a) __KCOMPAT_EACH_6(m, __VA_ARGS__)
#define __KCOMPAT_EACH_8(m, a, ...) m(a) __KCOMPAT_EACH_7(m, __VA_ARGS__)
#define __KCOMPAT_EACH_9(m, a, ...) m(a) __KCOMPAT_EACH_8(m, __VA_ARGS__)
#define __KCOMPAT_EACH_10(m, a, ...) m(a) __KCOMPAT_EACH_9(m, __VA_ARGS__)
#define __KCOMPAT_EACH_11(m, a, ...) m(a) __KCOMPAT_EACH_10(m, __VA_ARGS__)
#define __KCOMPAT_EACH_12(m, a, ...) m(a) __KCOMPAT_EACH_11(m, __VA_ARGS__)
#define __KCOMPAT_NTH(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, n, ...) n
#define __KCOMPAT_EACH(m, ...)						\
	__KCOMPAT_NTH(__VA_ARGS__, __KCOMPAT_EACH_12, __KCOMPAT_EACH_11,	\
		      __KCOMPAT_EACH_10, __KCOMPAT_EACH_9, __KCOMPAT_EACH_8,	\
		      __KCOMPAT_EACH_7, __KCOMPAT_EACH_6, __KCOMPAT_EACH_5,	\
		      __KCOMPAT_EACH_4, __KCOMPAT_EACH_3, __KCOMPAT_EACH_2,	\
		      __KCOMPAT_EACH_1)(m, __VA_ARGS__)

#define __KCOMPAT_DEFINE_TRACE(name, proto, args)			\
	static inline void trace_##name(proto)				\
	{								\
		const struct __kcompat_trace_arg __a[] = {		\
			__KCOMPAT_EACH(__KCOMPAT_TRACE_ARG, args)	\
		};							\
		__kcompat_trace(#name, ARRAY_SIZE(__a), __a);		\
	}								\
	static inline bool trace_##name##_enabled(void) { return false; }

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#define DEFINE_EVENT(template, name, proto, args)			\
	__KCOMPAT_DEFINE_TRACE(name, PARAMS(proto), PARAMS(args))
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)		\
	__KCOMPAT_DEFINE_TRACE(name, PARAMS(proto), PARAMS(args))
#define DEFINE_EVENT_CONDITION(template, name, proto, args, cond)	\
	__KCOMPAT_DEFINE_TRACE(name, PARAMS(proto), PARAMS(args))
#define TRACE_EVENT(name, proto, args, struct, assign, print)		\
	__KCOMPAT_DEFINE_TRACE(name, PARAMS(proto), PARAMS(args))
#define TRACE_EVENT_CONDITION(name, proto, args, cond, struct, assign, print) \
	__KCOMPAT_DEFINE_TRACE(name, PARAMS(proto), PARAMS(args))
#define TRACE_DEFINE_ENUM(a)
#define TRACE_DEFINE_SIZEOF(a)

#endif
