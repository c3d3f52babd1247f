// SPDX-License-Identifier: GPL-2.0
/*
 * shim.c - builds a kernel-shaped world from a flat struct shim_call, runs
 * one upstream function on it and reports a flat struct shim_outcome.
 *
 * This file is compiled like the driver (kcompat headers, the tree's own
 * hfi1 and rdma headers), so it fills the tree's real structs and maps the
 * shim's symbolic names to the tree's real macro and enum values.  It never
 * decides anything the driver decides: it only lays out memory and calls.
 */
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>
#include <rdma/ib_verbs.h>

#include "hfi.h"
#include "qp.h"
#include "sdma.h"
#include "pio.h"

#include "shim.h"
#include "mocks/journal.h"

/*
 * Module parameters defined in files this world does not compile
 * (chip.c, verbs.c): their values come from the vector.
 */
uint num_vls;
unsigned short piothreshold;

/* The tree's value of each symbolic name, in the shim's order. */
static const unsigned long dev_flag_values[SHIM_DEV_FLAG_COUNT] = {
	[SHIM_HFI1_INITTED] = HFI1_INITTED,
	[SHIM_HFI1_PRESENT] = HFI1_PRESENT,
	[SHIM_HFI1_FROZEN] = HFI1_FROZEN,
	[SHIM_HFI1_HAS_SDMA_TIMEOUT] = HFI1_HAS_SDMA_TIMEOUT,
	[SHIM_HFI1_HAS_SEND_DMA] = HFI1_HAS_SEND_DMA,
	[SHIM_HFI1_FORCED_FREEZE] = HFI1_FORCED_FREEZE,
	[SHIM_HFI1_SHUTDOWN] = HFI1_SHUTDOWN,
};

static const enum ib_qp_type qp_type_values[SHIM_QP_TYPE_COUNT] = {
	[SHIM_IB_QPT_SMI] = IB_QPT_SMI,
	[SHIM_IB_QPT_GSI] = IB_QPT_GSI,
	[SHIM_IB_QPT_RC] = IB_QPT_RC,
	[SHIM_IB_QPT_UC] = IB_QPT_UC,
	[SHIM_IB_QPT_UD] = IB_QPT_UD,
};

static const enum ib_qp_state qp_state_values[SHIM_QP_STATE_COUNT] = {
	[SHIM_IB_QPS_RESET] = IB_QPS_RESET,
	[SHIM_IB_QPS_INIT] = IB_QPS_INIT,
	[SHIM_IB_QPS_RTR] = IB_QPS_RTR,
	[SHIM_IB_QPS_RTS] = IB_QPS_RTS,
	[SHIM_IB_QPS_SQD] = IB_QPS_SQD,
	[SHIM_IB_QPS_SQE] = IB_QPS_SQE,
	[SHIM_IB_QPS_ERR] = IB_QPS_ERR,
};

static const int wr_opcode_values[SHIM_WR_OPCODE_COUNT] = {
	[SHIM_IB_WR_RDMA_WRITE] = IB_WR_RDMA_WRITE,
	[SHIM_IB_WR_RDMA_WRITE_WITH_IMM] = IB_WR_RDMA_WRITE_WITH_IMM,
	[SHIM_IB_WR_SEND] = IB_WR_SEND,
	[SHIM_IB_WR_SEND_WITH_IMM] = IB_WR_SEND_WITH_IMM,
	[SHIM_IB_WR_RDMA_READ] = IB_WR_RDMA_READ,
	[SHIM_IB_WR_ATOMIC_CMP_AND_SWP] = IB_WR_ATOMIC_CMP_AND_SWP,
	[SHIM_IB_WR_ATOMIC_FETCH_AND_ADD] = IB_WR_ATOMIC_FETCH_AND_ADD,
	[SHIM_IB_WR_LOCAL_INV] = IB_WR_LOCAL_INV,
	[SHIM_IB_WR_SEND_WITH_INV] = IB_WR_SEND_WITH_INV,
	[SHIM_IB_WR_REG_MR] = IB_WR_REG_MR,
	[SHIM_IB_WR_OPFN] = IB_WR_OPFN,
	[SHIM_IB_WR_TID_RDMA_WRITE] = IB_WR_TID_RDMA_WRITE,
	[SHIM_IB_WR_TID_RDMA_READ] = IB_WR_TID_RDMA_READ,
};

/*
 * The world: one device, its ports, engines, send contexts and maps, one
 * QP with its private data, one swqe and its AH.  Static storage: a C world
 * serves one call at a time.
 */
static struct {
	struct hfi1_devdata dd;
	struct hfi1_pportdata pport[SHIM_MAX_PORTS];
	struct sdma_engine per_sdma[SHIM_MAX_SDMA];
	struct send_context sc[SHIM_MAX_SEND_CONTEXTS];
	struct workqueue_struct *wq;
	union {
		struct sdma_vl_map m;
		char bytes[sizeof(struct sdma_vl_map) +
			   SHIM_MAP_MAX_ELEMS * sizeof(struct sdma_map_elem *)];
	} sdma_map;
	union {
		struct sdma_map_elem e;
		char bytes[sizeof(struct sdma_map_elem) +
			   SHIM_ELEM_MAX_ENTRIES * sizeof(struct sdma_engine *)];
	} sdma_elem[SHIM_MAP_MAX_ELEMS];
	union {
		struct pio_vl_map m;
		char bytes[sizeof(struct pio_vl_map) +
			   SHIM_MAP_MAX_ELEMS * sizeof(struct pio_map_elem *)];
	} pio_map;
	union {
		struct pio_map_elem e;
		char bytes[sizeof(struct pio_map_elem) +
			   SHIM_ELEM_MAX_ENTRIES * sizeof(struct send_context *)];
	} pio_elem[SHIM_MAP_MAX_ELEMS];
	struct rvt_qp qp;
	struct hfi1_qp_priv priv;
	struct rvt_ah ah;
	struct {
		struct rvt_swqe wqe;
		struct rvt_sge sge[1];
	} swqe;
	char tid_priv[64];		/* what wqe->priv points at */
	struct cpumask node_mask;
} w;

/* A stand-in workqueue: only its address matters (journal: "wq:hfi1"). */
static char hfi1_wq_token;

static bool shim_check_call(const struct shim_call *c)
{
	const struct shim_world *sw = &c->world;
	unsigned int i, j;

	if (c->fn >= SHIM_FN_COUNT || c->qp.qp_type >= SHIM_QP_TYPE_COUNT ||
	    c->qp.state >= SHIM_QP_STATE_COUNT ||
	    c->wqe.opcode >= SHIM_WR_OPCODE_COUNT)
		return false;
	if (sw->num_sdma > SHIM_MAX_SDMA ||
	    sw->num_send_contexts > SHIM_MAX_SEND_CONTEXTS ||
	    sw->num_pports > SHIM_MAX_PORTS ||
	    sw->sdma_map.nelems > SHIM_MAP_MAX_ELEMS ||
	    sw->pio_map.nelems > SHIM_MAP_MAX_ELEMS)
		return false;
	for (i = 0; i < SHIM_MAP_MAX_ELEMS; i++) {
		if (sw->sdma_map.elems[i].nentries > SHIM_ELEM_MAX_ENTRIES ||
		    sw->pio_map.elems[i].nentries > SHIM_ELEM_MAX_ENTRIES)
			return false;
		for (j = 0; j < SHIM_ELEM_MAX_ENTRIES; j++) {
			if (sw->sdma_map.elems[i].entries[j] >= sw->num_sdma ||
			    sw->pio_map.elems[i].entries[j] >= sw->num_send_contexts)
				return false;
		}
	}
	for (i = 0; i < SHIM_NUM_VLD; i++)
		if (sw->vl_sc[i] >= sw->num_send_contexts)
			return false;
	return true;
}

static struct send_context *shim_sc(int idx)
{
	return idx < 0 ? NULL : &w.sc[idx];
}

static void shim_build_maps(const struct shim_world *sw)
{
	unsigned int i, j;

	memset(&w.sdma_map, 0, sizeof(w.sdma_map));
	memset(&w.pio_map, 0, sizeof(w.pio_map));
	memset(&w.sdma_elem, 0, sizeof(w.sdma_elem));
	memset(&w.pio_elem, 0, sizeof(w.pio_elem));

	w.sdma_map.m.mask = sw->sdma_map.mask;
	for (i = 0; i < sw->sdma_map.nelems; i++) {
		const struct shim_map_elem *se = &sw->sdma_map.elems[i];

		if (!se->present)
			continue;
		w.sdma_elem[i].e.mask = se->mask;
		for (j = 0; j < se->nentries; j++)
			w.sdma_elem[i].e.sde[j] = se->entries[j] < 0 ? NULL :
				&w.per_sdma[se->entries[j]];
		w.sdma_map.m.map[i] = &w.sdma_elem[i].e;
	}
	RCU_INIT_POINTER(w.dd.sdma_map, sw->sdma_map.present ? &w.sdma_map.m : NULL);

	w.pio_map.m.mask = sw->pio_map.mask;
	for (i = 0; i < sw->pio_map.nelems; i++) {
		const struct shim_map_elem *se = &sw->pio_map.elems[i];

		if (!se->present)
			continue;
		w.pio_elem[i].e.mask = se->mask;
		for (j = 0; j < se->nentries; j++)
			w.pio_elem[i].e.ksc[j] = shim_sc(se->entries[j]);
		w.pio_map.m.map[i] = &w.pio_elem[i].e;
	}
	RCU_INIT_POINTER(w.dd.pio_map, sw->pio_map.present ? &w.pio_map.m : NULL);
}

static void shim_build_world(const struct shim_world *sw)
{
	unsigned int i;
	unsigned long flags = 0;

	memset(&w.dd, 0, sizeof(w.dd));
	memset(w.pport, 0, sizeof(w.pport));
	memset(w.per_sdma, 0, sizeof(w.per_sdma));
	memset(w.sc, 0, sizeof(w.sc));

	for (i = 0; i < SHIM_DEV_FLAG_COUNT; i++)
		if (sw->dev_flags & (1u << i))
			flags |= dev_flag_values[i];
	w.dd.flags = flags;
	w.dd.qos_shift = sw->qos_shift;
	w.dd.node = sw->node;
	num_vls = sw->num_vls;
	piothreshold = sw->piothreshold;
	seqlock_init(&w.dd.sc2vl_lock);
	memcpy(w.dd.sc2vl, sw->sc_to_vl, sizeof(sw->sc_to_vl));
	for (i = 0; i < SHIM_NUM_VLD; i++) {
		w.dd.vld[i].mtu = sw->vl_mtu[i];
		w.dd.vld[i].sc = shim_sc(sw->vl_sc[i]);
	}
	for (i = 0; i < SHIM_MAX_SDMA; i++) {
		w.per_sdma[i].dd = &w.dd;
		w.per_sdma[i].this_idx = i;
		w.per_sdma[i].cpu = sw->sdma[i].cpu;
	}
	w.dd.per_sdma = w.per_sdma;
	w.dd.num_sdma = sw->num_sdma;
	for (i = 0; i < SHIM_MAX_SEND_CONTEXTS; i++) {
		w.sc[i].dd = &w.dd;
		w.sc[i].sw_index = sw->send_contexts[i].sw_index;
		seqlock_init(&w.sc[i].waitlock);
	}
	shim_build_maps(sw);

	w.dd.num_pports = sw->num_pports;
	w.dd.pport = w.pport;
	w.wq = (struct workqueue_struct *)&hfi1_wq_token;
	for (i = 0; i < SHIM_MAX_PORTS; i++) {
		w.pport[i].dd = &w.dd;
		w.pport[i].port = i + 1;
		w.pport[i].hfi1_wq = w.wq;
		memcpy(w.pport[i].ibport_data.sl_to_sc, sw->ports[i].sl_to_sc,
		       sizeof(sw->ports[i].sl_to_sc));
	}
	memset(&w.node_mask, 0, sizeof(w.node_mask));
	w.node_mask.bits[0] = sw->node_cpus;
}

static void shim_build_qp(const struct shim_call *c)
{
	memset(&w.qp, 0, sizeof(w.qp));
	memset(&w.priv, 0, sizeof(w.priv));
	w.qp.ibqp.device = &w.dd.verbs_dev.rdi.ibdev;
	w.qp.ibqp.qp_type = qp_type_values[c->qp.qp_type];
	w.qp.ibqp.qp_num = c->qp.qp_num;
	w.qp.port_num = c->qp.port_num;
	w.qp.pmtu = c->qp.pmtu;
	w.qp.state = qp_state_values[c->qp.state];
	w.qp.priv = &w.priv;
	w.priv.owner = &w.qp;
	spin_lock_init(&w.qp.s_lock);

	memset(&w.swqe, 0, sizeof(w.swqe));
	memset(&w.ah, 0, sizeof(w.ah));
	w.swqe.wqe.length = c->wqe.length;
	w.swqe.wqe.wr.opcode = wr_opcode_values[c->wqe.opcode];
	w.swqe.wqe.priv = c->wqe.has_priv ? w.tid_priv : NULL;
	w.ah.log_pmtu = c->wqe.ah.log_pmtu;
	rdma_ah_set_sl(&w.ah.attr, c->wqe.ah.sl);
	rdma_ah_set_port_num(&w.ah.attr, c->wqe.ah.port_num);
	w.swqe.wqe.ud_wr.wr.ah = c->wqe.has_ah ? &w.ah.ibah : NULL;
}

/* Maps a pointer back to the world's index for it. */
static int shim_sde_index(const struct sdma_engine *sde)
{
	if (!sde)
		return SHIM_NONE;
	if (sde >= w.per_sdma && sde < w.per_sdma + SHIM_MAX_SDMA)
		return sde - w.per_sdma;
	return SHIM_FOREIGN;
}

static int shim_sc_index(const struct send_context *sc)
{
	if (!sc)
		return SHIM_NONE;
	if (sc >= w.sc && sc < w.sc + SHIM_MAX_SEND_CONTEXTS)
		return sc - w.sc;
	return SHIM_FOREIGN;
}

int shim_ptr_name(const void *p, char *buf, size_t len)
{
	int i;

	if (!p)
		return snprintf(buf, len, "(null)");
	i = shim_sde_index(p);
	if (i >= 0)
		return snprintf(buf, len, "sde#%d", i);
	i = shim_sc_index(p);
	if (i >= 0)
		return snprintf(buf, len, "sc#%d", i);
	if (p == &w.qp)
		return snprintf(buf, len, "qp#0x%x", w.qp.ibqp.qp_num);
	if (p == &w.swqe.wqe)
		return snprintf(buf, len, "wqe");
	if (p == w.wq)
		return snprintf(buf, len, "wq:hfi1");
	if (p == &w.dd)
		return snprintf(buf, len, "dd");
	if (p == &w.priv.s_iowait.wait[IOWAIT_IB_SE].iowork)
		return snprintf(buf, len, "iowork:IB");
	if (p == &w.priv.s_iowait.wait[IOWAIT_TID_SE].iowork)
		return snprintf(buf, len, "iowork:TID");
	if (p == &w.node_mask)
		return snprintf(buf, len, "cpumask:node%d", w.dd.node);
	return snprintf(buf, len, "ptr:foreign");
}

const struct cpumask *shim_node_mask(int node)
{
	return node == w.dd.node ? &w.node_mask : NULL;
}

shim_u32 shim_abi_version(void)
{
	return SHIM_ABI_VERSION;
}

int shim_run(const struct shim_call *c, struct shim_outcome *out)
{
	struct sdma_engine *sde;
	struct send_context *sc;
	bool call_send;

	memset(out, 0, offsetof(struct shim_outcome, journal));
	out->journal[0] = '\0';
	out->sdma_engine = SHIM_NONE;
	out->send_context = SHIM_NONE;
	if (!shim_check_call(c))
		return -1;
	shim_build_world(&c->world);
	shim_build_qp(c);
	journal_begin(out);

	switch (c->fn) {
	case SHIM_FN_HFI1_SETUP_WQE:
		call_send = c->call_send;
		out->ret = hfi1_setup_wqe(&w.qp, &w.swqe.wqe, &call_send);
		out->call_send = call_send;
		break;
	case SHIM_FN_QP_TO_SDMA_ENGINE:
		sde = qp_to_sdma_engine(&w.qp, c->sc5);
		out->sdma_engine = shim_sde_index(sde);
		break;
	case SHIM_FN_QP_TO_SEND_CONTEXT:
		sc = qp_to_send_context(&w.qp, c->sc5);
		out->send_context = shim_sc_index(sc);
		break;
	case SHIM_FN_SDMA_SELECT_ENGINE_SC:
		sde = sdma_select_engine_sc(&w.dd, c->selector, c->sc5);
		out->sdma_engine = shim_sde_index(sde);
		break;
	case SHIM_FN_SDMA_SELECT_ENGINE_VL:
		sde = sdma_select_engine_vl(&w.dd, c->selector, c->vl);
		out->sdma_engine = shim_sde_index(sde);
		break;
	case SHIM_FN_PIO_SELECT_SEND_CONTEXT_SC:
		sc = pio_select_send_context_sc(&w.dd, c->selector, c->sc5);
		out->send_context = shim_sc_index(sc);
		break;
	case SHIM_FN_PIO_SELECT_SEND_CONTEXT_VL:
		sc = pio_select_send_context_vl(&w.dd, c->selector, c->vl);
		out->send_context = shim_sc_index(sc);
		break;
	default:
		journal_end();
		return -1;
	}
	journal_end();
	return 0;
}

const char *shim_kernel_version(void)
{
	return SHIM_KERNEL_VERSION;
}
