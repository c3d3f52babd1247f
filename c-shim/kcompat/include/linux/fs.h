/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/fs.h>. */
#ifndef _KCOMPAT_LINUX_FS_H
#define _KCOMPAT_LINUX_FS_H

#include <linux/kernel.h>

struct file;
struct inode;
struct seq_file;
struct file_operations;

#endif
