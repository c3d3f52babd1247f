/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/i2c.h>. */
#ifndef _KCOMPAT_LINUX_I2C_H
#define _KCOMPAT_LINUX_I2C_H

#include <linux/kernel.h>
#include <linux/device.h>
#include <linux/mutex.h>

struct i2c_algorithm;

struct i2c_adapter {
	const struct i2c_algorithm *algo;
	void *algo_data;
	int timeout;
	int retries;
	struct device dev;
	int nr;
	char name[48];
};

struct i2c_client {
	unsigned short flags;
	unsigned short addr;
	char name[20];
	struct i2c_adapter *adapter;
	struct device dev;
};

struct i2c_msg {
	__u16 addr;
	__u16 flags;
	__u16 len;
	__u8 *buf;
};

#endif
