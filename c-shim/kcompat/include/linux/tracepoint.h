/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcompat: stands in for <linux/tracepoint.h>.
 *
 * Every tracepoint becomes an empty inline trace_<name>() and a
 * trace_<name>_enabled() that is always false; event classes and enum
 * definitions expand to nothing.  The driver's trace_*.h compile untouched.
 */
#ifndef _KCOMPAT_LINUX_TRACEPOINT_H
#define _KCOMPAT_LINUX_TRACEPOINT_H

#include <linux/kernel.h>

#define PARAMS(args...) args
#define TP_PROTO(args...) args
#define TP_ARGS(args...) args
#define TP_CONDITION(args...) args

#define __KCOMPAT_DECLARE_TRACE(name, proto)				\
	static inline void trace_##name(proto) { }			\
	static inline bool trace_##name##_enabled(void) { return false; }

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#define DEFINE_EVENT(template, name, proto, args)			\
	static inline void trace_##name(proto) { }			\
	static inline bool trace_##name##_enabled(void) { return false; }
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)		\
	static inline void trace_##name(proto) { }			\
	static inline bool trace_##name##_enabled(void) { return false; }
#define DEFINE_EVENT_CONDITION(template, name, proto, args, cond)	\
	static inline void trace_##name(proto) { }			\
	static inline bool trace_##name##_enabled(void) { return false; }
#define TRACE_EVENT(name, proto, args, struct, assign, print)		\
	static inline void trace_##name(proto) { }			\
	static inline bool trace_##name##_enabled(void) { return false; }
#define TRACE_EVENT_CONDITION(name, proto, args, cond, struct, assign, print) \
	static inline void trace_##name(proto) { }			\
	static inline bool trace_##name##_enabled(void) { return false; }
#define TRACE_DEFINE_ENUM(a)
#define TRACE_DEFINE_SIZEOF(a)

#endif
