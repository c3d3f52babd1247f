/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/* kcompat: stands in for <uapi/asm-generic/errno-base.h> and errno.h (x86 values). */
#ifndef _KCOMPAT_UAPI_ASM_GENERIC_ERRNO_H
#define _KCOMPAT_UAPI_ASM_GENERIC_ERRNO_H

#define EPERM		1
#define ENOENT		2
#define ESRCH		3
#define EINTR		4
#define EIO		5
#define ENXIO		6
#define E2BIG		7
#define EBADF		9
#define EAGAIN		11
#define ENOMEM		12
#define EACCES		13
#define EFAULT		14
#define EBUSY		16
#define EEXIST		17
#define ENODEV		19
#define EINVAL		22
#define ENFILE		23
#define ENOSPC		28
#define ERANGE		34
#define EDEADLK		35
#define ENOSYS		38
#define EMSGSIZE	90
#define EPROTONOSUPPORT	93
#define EAFNOSUPPORT	97
#define EADDRNOTAVAIL	99
#define ENETDOWN	100
#define ENETUNREACH	101
#define ECONNRESET	104
#define ENOTCONN	107
#define ENODATA		61
#define ECOMM		70
#define ETIME		62
#define EOVERFLOW	75
#define EOPNOTSUPP	95
#define ENOBUFS		105
#define ETIMEDOUT	110
#define ECONNREFUSED	111
#define ECANCELED	125
#define ENOTSUPP	524

#endif
