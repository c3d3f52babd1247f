/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <asm/byteorder.h>. */
#ifndef _KCOMPAT_ASM_BYTEORDER_H
#define _KCOMPAT_ASM_BYTEORDER_H

#include <linux/types.h>

/* x86_64 is little endian. */
#define __LITTLE_ENDIAN 1234
#define __LITTLE_ENDIAN_BITFIELD

static inline __u32 __kcompat_htonl(__u32 x) { return __builtin_bswap32(x); }

#define cpu_to_le16(x)	((__le16)(__u16)(x))
#define cpu_to_le32(x)	((__le32)(__u32)(x))
#define cpu_to_le64(x)	((__le64)(__u64)(x))
#define le16_to_cpu(x)	((__u16)(__le16)(x))
#define le32_to_cpu(x)	((__u32)(__le32)(x))
#define le64_to_cpu(x)	((__u64)(__le64)(x))
#define cpu_to_be16(x)	((__be16)__builtin_bswap16((__u16)(x)))
#define cpu_to_be32(x)	((__be32)__builtin_bswap32((__u32)(x)))
#define cpu_to_be64(x)	((__be64)__builtin_bswap64((__u64)(x)))
#define be16_to_cpu(x)	__builtin_bswap16((__u16)(__be16)(x))
#define be32_to_cpu(x)	__builtin_bswap32((__u32)(__be32)(x))
#define be64_to_cpu(x)	__builtin_bswap64((__u64)(__be64)(x))
#define be16_to_cpus(p)	(*(p) = be16_to_cpu(*(p)))
#define be32_to_cpus(p)	(*(p) = be32_to_cpu(*(p)))
#define be64_to_cpus(p)	(*(p) = be64_to_cpu(*(p)))
#define cpu_to_be32s(p)	(*(p) = cpu_to_be32(*(p)))
#define __le16_to_cpu(x)	le16_to_cpu(x)
#define __le32_to_cpu(x)	le32_to_cpu(x)
#define __le64_to_cpu(x)	le64_to_cpu(x)
#define __cpu_to_le64(x)	cpu_to_le64(x)
#define __cpu_to_le32(x)	cpu_to_le32(x)
#define __cpu_to_be32(x)	cpu_to_be32(x)
#define __be32_to_cpu(x)	be32_to_cpu(x)
#define __cpu_to_be16(x)	cpu_to_be16(x)
#define __be16_to_cpu(x)	be16_to_cpu(x)
#define __cpu_to_be64(x)	cpu_to_be64(x)
#define __be64_to_cpu(x)	be64_to_cpu(x)
#define htonl(x)	cpu_to_be32(x)
#define ntohl(x)	be32_to_cpu(x)
#define htons(x)	cpu_to_be16(x)
#define ntohs(x)	be16_to_cpu(x)

static inline __u32 be32_to_cpup(const __be32 *p) { return be32_to_cpu(*p); }
static inline __u16 be16_to_cpup(const __be16 *p) { return be16_to_cpu(*p); }
static inline __u64 be64_to_cpup(const __be64 *p) { return be64_to_cpu(*p); }

#endif
