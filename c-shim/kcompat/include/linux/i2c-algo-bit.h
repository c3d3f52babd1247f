/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/i2c-algo-bit.h>. */
#ifndef _KCOMPAT_LINUX_I2C_ALGO_BIT_H
#define _KCOMPAT_LINUX_I2C_ALGO_BIT_H

#include <linux/i2c.h>

struct i2c_algo_bit_data {
	void *data;
	void (*setsda)(void *data, int state);
	void (*setscl)(void *data, int state);
	int (*getsda)(void *data);
	int (*getscl)(void *data);
	int (*pre_xfer)(struct i2c_adapter *);
	void (*post_xfer)(struct i2c_adapter *);
	int udelay;
	int timeout;
	bool can_do_atomic;
};

#endif
