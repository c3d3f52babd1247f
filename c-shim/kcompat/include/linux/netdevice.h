/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/netdevice.h>. */
#ifndef _KCOMPAT_LINUX_NETDEVICE_H
#define _KCOMPAT_LINUX_NETDEVICE_H

#include <linux/kernel.h>
#include <linux/device.h>
#include <linux/if_link.h>
#include <linux/refcount.h>
#include <linux/percpu.h>
#include <linux/u64_stats_sync.h>

#define IFNAMSIZ	16
#define MAX_ADDR_LEN	32

typedef struct {} netdevice_tracker;
struct net;
typedef struct {
	struct net *net;
} possible_net_t;

struct net_device {
	char name[IFNAMSIZ];
	unsigned int flags;
	unsigned int mtu;
	int ifindex;
	unsigned char addr_len;
	unsigned char dev_addr[MAX_ADDR_LEN];
	struct device dev;
};

struct napi_struct {
	struct list_head poll_list;
	unsigned long state;
	int weight;
	int (*poll)(struct napi_struct *, int);
	struct net_device *dev;
};

struct sk_buff;
struct net_device_stats;

/* 5.10's ipoib.h counts packets in these (later kernels: dev_sw_netstats_*). */
struct pcpu_sw_netstats {
	u64 rx_packets;
	u64 rx_bytes;
	u64 tx_packets;
	u64 tx_bytes;
	struct u64_stats_sync syncp;
};
struct rtnl_link_stats64 {
	__u64 rx_packets;
	__u64 tx_packets;
	__u64 rx_bytes;
	__u64 tx_bytes;
};

#define NETDEV_ALIGN	32
#define netdev_priv(dev) ((void *)((char *)(dev) + ALIGN(sizeof(struct net_device), NETDEV_ALIGN)))
#define dev_net(dev)	((struct net *)0)

/* Not reached by a vector; declared so that inline helpers compile. */
bool netif_running(const struct net_device *dev);
bool netif_carrier_ok(const struct net_device *dev);
void dev_put(struct net_device *dev);
void dev_hold(struct net_device *dev);
#define netdev_put(dev, tracker) dev_put(dev)
#define netdev_hold(dev, tracker, gfp) dev_hold(dev)

static inline struct net *read_pnet(const possible_net_t *pnet)
{
	return pnet->net;
}

#endif
