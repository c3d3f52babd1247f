/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <trace/define_trace.h>. */
#ifndef _KCOMPAT_TRACE_DEFINE_TRACE_H
#define _KCOMPAT_TRACE_DEFINE_TRACE_H


#endif
