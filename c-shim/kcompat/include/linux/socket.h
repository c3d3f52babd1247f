/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/socket.h>. */
#ifndef _KCOMPAT_LINUX_SOCKET_H
#define _KCOMPAT_LINUX_SOCKET_H

#include <linux/types.h>

#endif
