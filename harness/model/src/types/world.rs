//! The world: the device and module parameters a QP reaches, declared
//! once ([`world_schema!`](crate::world_schema)).

use super::*;
use crate::record;

/// The world's schema (see [`crate::schema`]), as
/// [`qp_schema!`](crate::qp_schema): the device and module parameters a QP
/// reaches. Per-port fields hold port 1 first; the number of ports is
/// `sl_to_sc`'s, and a shorter per-port field reads 0 for the rest.
#[macro_export]
macro_rules! world_schema {
    ($cb:ident [$($args:tt)*]) => {
        $cb! { [$($args)*]
            /// `dd->flags`.
            "dev_flags" dev_flags: Flags<DevFlag> [dev_flags] = Flags::default(),
            /// `dd->qos_shift`.
            "qos_shift" qos_shift: u8 [qos_shift] = 0,
            /// Module parameter `num_vls` (chip.c).
            "num_vls" num_vls: u32 [num_vls] = 0,
            /// Module parameter `piothreshold` (verbs.c).
            "piothreshold" piothreshold: u16 [piothreshold] = 0,
            /// `dd->node`.
            "node" node: i32 [0..=3] = 0,
            /// `cpumask_of_node(dd->node)`.
            "node_cpus" node_cpus: CpuMask [node_cpus] = CpuMask(0),
            /// `dd->sc2vl`.
            "sc_to_vl" sc_to_vl: [u8; 32] [sc_to_vl] = [0; 32],
            /// `dd->vld[i].mtu`.
            "vl_mtu" vl_mtu: [u16; 16] [vl_mtu] = [0; 16],
            /// Send contexts of the world; context `i` has `sw_index` i.
            /// Generated worlds have two or more: a device has VL15's and
            /// a kernel one (the PIO map is built from index 1).
            "num_send_contexts" num_send_contexts: u8 [2..=64] = 0,
            /// `dd->vld[i].sc`: a send context of the world, or NULL.
            "vl_sc" vl_sc: [Option<SendCtxIdx>; 16] [vl_sc] = [None; 16],
            /// `sc->hw_context` of send context `i` (a u8 in `struct
            /// send_context`): the context's CSRs (chip.h's `*_kctxt_csr`).
            "sc_hw_context" sc_hw_context: PerIndex<u8, 64> [sc_hw_context] = PerIndex::new(),
            /// `sc->group` of send context `i`: the contexts of `2^group`
            /// hardware contexts from its own rounded down share a credit
            /// return (`sc_alloc()` sets 0; at most 3 here).
            "sc_group" sc_group: PerIndex<u8, 64> [sc_group] = PerIndex::new(),
            /// What send context `i`'s `SEND_CTXT_CTRL` reads (chip.h's
            /// `read_kctxt_csr` at its `hw_context`; contexts sharing a
            /// hardware context read the lowest index's registers).
            "sc_ctrl_csr" sc_ctrl_csr: PerIndex<u64, 64> [sc_csr] = PerIndex::new(),
            /// What send context `i`'s `SEND_CTXT_STATUS` reads (bit 0:
            /// the context halted).
            "sc_status_csr" sc_status_csr: PerIndex<u64, 64> [sc_csr] = PerIndex::new(),
            /// What send context `i`'s `SEND_CTXT_ERR_STATUS` reads (its
            /// errors, which `sc_enable()` clears).
            "sc_err_csr" sc_err_csr: PerIndex<u64, 64> [sc_csr] = PerIndex::new(),
            /// What send context `i`'s `SEND_EGRESS_CTXT_STATUS` reads
            /// (bits 0-13: packets in the egress; bit 16: egress halted).
            "sc_egress_csr" sc_egress_csr: PerIndex<u64, 64> [sc_egress_csr] = PerIndex::new(),
            /// What send context `i`'s `SEND_CTXT_CREDIT_STATUS` reads (bits
            /// 32-42: its current free counter, 0-10: the last returned).
            "sc_credit_status_csr" sc_credit_status_csr: PerIndex<u64, 64> [sc_csr] = PerIndex::new(),
            /// `dd->send_contexts[i].type` of send context `i` (absent:
            /// `SC_KERNEL`, 0).
            "sc_type" sc_type: PerIndex<ScType, 64> [sc_type] = PerIndex::new(),
            /// `dd->per_sdma[i].cpu`; its length is the number of engines.
            "sdma_cpus" sdma_cpus: Slots<i32, 16> [sdma_cpus] = Slots::new(),
            /// `dd->sdma_map`, or NULL.
            "sdma_map" sdma_map: Option<VlMap<EngineIdx>> [sdma_map] = None,
            /// `dd->pio_map`, or NULL.
            "pio_map" pio_map: Option<VlMap<SendCtxIdx>> [pio_map] = None,
            /// `dd->kernel_send_context[i]`: the kernel's send contexts as
            /// `init_pervl_scs()` numbers them (0: VL15's, then the data
            /// VLs'); the array has `num_send_contexts` entries, those past
            /// this list NULL. Read by the PIO map's rebuild only.
            "kernel_sc" kernel_sc: Slots<Option<SendCtxIdx>, 24> [kernel_sc] = Slots::new(),
            /// `dd->rcd[0]->rcvhdrqentsize`: a receive header queue entry
            /// in dwords (module parameter `hdrq_entsize`: 2, 16 or 32).
            "rcvhdrqentsize" rcvhdrqentsize: u8 [rcvhdrqentsize] = 32,
            /// Per port: `ibp->sl_to_sc`; its length is `dd->num_pports`.
            "sl_to_sc" sl_to_sc: Slots<[u8; 32], 2> [sl_to_sc] = Slots::new(),
            /// Per port: `ppd->ibmtu`.
            "port_ibmtu" port_ibmtu: Slots<u32, 2> [port_ibmtu] = Slots::new(),
            /// Per port: `ppd->lid`.
            "port_lid" port_lid: Slots<u32, 2> [port_lid] = Slots::new(),
            /// Per port: `ibp->rvp.gid_prefix`.
            "port_gid_prefix" port_gid_prefix: Slots<u64, 2> [port_gid_prefix] = Slots::new(),
            /// Per port: whether `ibp->rvp.qp[0]` (QP0) exists.
            "port_qp0" port_qp0: Slots<bool, 2> [port_bools] = Slots::new(),
            /// Per port: whether `ibp->rvp.qp[1]` (QP1) exists.
            "port_qp1" port_qp1: Slots<bool, 2> [port_bools] = Slots::new(),
            /// `rdi->dparms.max_rdma_atomic`.
            "max_rdma_atomic" max_rdma_atomic: u8 = 0,
            /// `rdi->dparms.extra_rdma_atomic`.
            "extra_rdma_atomic" extra_rdma_atomic: u8 = 0,
            /// What `queue_work_on` returns (true: the work was not already
            /// queued).
            "queue_work_ret" queue_work_ret: bool [queue_work_ret] = true,
            /// What the boundary `hfi1_schedule_tid_send` returns (true:
            /// scheduled).
            "tid_send_ret" tid_send_ret: bool = false,
            /// What `cancel_work_sync` returns (true: the work was pending).
            "cancel_work_ret" cancel_work_ret: bool [cancel_work_ret] = false,
            /// Bit n: the n-th allocation of a call fails (counted from 0,
            /// modulo 64: a call's 65th is its first again).
            "alloc_fail" alloc_fail: u64 [alloc_fail] = 0,
            /// `dd->send_contexts[i].sc` is NULL: context `i` was freed
            /// (`sc_free()`) or never allocated; nothing else of the world
            /// names it. (Last: drawn after the tables that name contexts.)
            "sc_freed" sc_freed: PerIndex<bool, 64> [sc_freed] = PerIndex::new(),
            /// `hfi1_cap_mask`'s kernel bits `HFI1_CAP_USE_SDMA_HEAD` (the
            /// engines' head from host memory) and `HFI1_CAP_SDMA_HEAD_CHECK`
            /// (the head checked against the ring).
            "cap_use_sdma_head" cap_use_sdma_head: bool [cap_bit] = false,
            "cap_sdma_head_check" cap_sdma_head_check: bool [cap_bit] = false,
            /// `node_affinity.num_possible_nodes` (affinity.c): the NUMA
            /// nodes the machine may have.
            "possible_nodes" possible_nodes: u8 [1..=4] = 1,
            /// The online NUMA nodes (`node_online()`), node i in bit i;
            /// the device's node (`dd->node`) is online whatever this says.
            "online_nodes" online_nodes: u8 [online_nodes] = 1,
            /// The online nodes other than the device's that have CPUs
            /// (`nr_cpus_node()`: one each); the device's has `node_cpus`.
            "cpu_nodes" cpu_nodes: u8 [cpu_nodes] = 1,
            /// What `SEND_PIO_INIT_CTXT` reads: the chip's PIO init engine
            /// (bit 2 in progress, bit 3 an error).
            "pio_init_csr" pio_init_csr: u64 [pio_init_csr] = 0,
            /// `dd->icode` is `ICODE_FPGA_EMULATION` (else
            /// `ICODE_RTL_SILICON`): the PIO init engine is given longer.
            "fpga_emulation" fpga_emulation: bool [cap_bit] = false,
            /// `hfi1_cap_mask`'s kernel bit `HFI1_CAP_SDMA_AHG`, and
            /// what chip.c's `is_bx(dd)` answers (a B-step chip): an
            /// engine's halt schedules a progress check of the others on
            /// an A-step chip with AHG.
            "cap_sdma_ahg" cap_sdma_ahg: bool [cap_bit] = false,
            "chip_bx" chip_bx: bool [cap_bit] = false,
            /// What every engine's `SEND_DMA_STATUS` reads: its clean-up
            /// done (bit 57: `ENG_CLEANED_UP`) and halted (bit 56).
            "sdma_status_csr" sdma_status_csr: u64 [sdma_status_csr] = 0,
            /// `dd->default_desc1`: the bits the last descriptor of every
            /// request gets in `qw[1]` (`_sdma_close_tx()`).
            "default_desc1" default_desc1: u64 [default_desc1] = 0,
            /// `dd->sdma_pad_phys`: the DMA address of the pad bytes.
            "sdma_pad_phys" sdma_pad_phys: u64 [sdma_pad_phys] = 0,
            /// The n-th DMA mapping of a call (`dma_map_page`,
            /// `dma_map_single`) fails (0: none does).
            "dma_map_fail" dma_map_fail: u8 [dma_map_fail] = 0,
            /// What `SEND_CTRL` reads: the chip's global send control
            /// (send enable, VL arbiter enable, CM reset in progress, the
            /// unsupported VLs).
            "send_ctrl_csr" send_ctrl_csr: u64 [send_ctrl_csr] = 0,
            /// `dd->send_contexts[i].credits` and `.base` of context `i`:
            /// its PIO blocks as `init_send_contexts()` laid them out (what
            /// `sc_alloc()` gives the context it allocates at index `i`).
            "sci_credits" sci_credits: PerIndex<u16, 64> [sci_credits] = PerIndex::new(),
            "sci_base" sci_base: PerIndex<u16, 64> [sci_base] = PerIndex::new(),
            /// `dd->sc_sizes[t]` for each type `t` (pio.h's order:
            /// kernel, VL15, ack, user): how many contexts of the type and
            /// each one's PIO blocks (`short int`s: a count or size of
            /// 0x8000 or more is negative), as `init_sc_pools_and_sizes()`
            /// sized them; read by `init_send_contexts()` only.
            "sc_size_count" sc_size_count: [u16; 4] [sc_size_count] = [0; 4],
            "sc_size_blocks" sc_size_blocks: [u16; 4] [sc_size_blocks] = [0; 4],
            /// What `SEND_CONTEXTS` reads (chip.h's `chip_send_contexts()`):
            /// the chip's hardware send contexts; `sc_hw_alloc()` gives
            /// index `i` hardware context `chip_send_contexts - i - 1`.
            "chip_send_contexts" chip_send_contexts: u8 [chip_send_contexts] = 160,
            /// Module parameter `user_credit_return_threshold` (init.c): a
            /// percentage, at most 100 once the driver has probed.
            "user_credit_return_threshold" user_credit_return_threshold: u8 [percent] = 33,
            /// Module parameter `max_mtu` (`hfi1_max_mtu`, init.c): 2048,
            /// 4096, 8192 or 10240 once the driver has probed.
            "max_mtu" max_mtu: u16 [max_mtu] = 10240,
            /// `hfi1_cap_mask`'s kernel bits `HFI1_CAP_NO_INTEGRITY` and
            /// `HFI1_CAP_EARLY_CREDIT_RETURN`, and the latter's user bit.
            "cap_no_integrity" cap_no_integrity: bool [cap_bit] = false,
            "cap_early_credit_return" cap_early_credit_return: bool [cap_bit] = false,
            "cap_user_early_credit_return" cap_user_early_credit_return: bool [cap_bit] = false,
            /// What `SEND_PIO_MEM_SIZE` reads (chip.h's `chip_pio_mem_size()`):
            /// the chip's PIO memory in bytes, 64 a block.
            "pio_mem_size" pio_mem_size: u32 [pio_mem_size] = 0x30000,
            /// `dd->n_krcv_queues` (the kernel's receive queues: one ack
            /// context each) and `dd->num_rcv_contexts` (with the user
            /// contexts: one send context each), as probe sets them.
            "n_krcv_queues" n_krcv_queues: u8 [n_krcv_queues] = 0,
            "num_rcv_contexts" num_rcv_contexts: u8 [num_rcv_contexts] = 0,
            /// `hfi1_cap_mask`'s kernel bit `HFI1_CAP_SDMA` (set by default).
            "cap_sdma" cap_sdma: bool [cap_bit] = true,
            /// `hfi1_cap_mask`'s kernel bit `HFI1_CAP_STATIC_RATE_CTRL`
            /// (`HFI1_CAP_MUST_HAVE_KERN`: set on every device that
            /// probed; a vector may clear it).
            "cap_static_rate_ctrl" cap_static_rate_ctrl: bool [cap_bit] = true,
            /// Whether the world sets module parameter `sdma_descq_cnt`
            /// (sdma.c), the engines' ring size asked for, to the field
            /// below; otherwise it is upstream's initializer (restored
            /// before every call), so a patch that changes it changes
            /// behaviour.
            "sdma_descq_cnt_set" sdma_descq_cnt_set: bool [ratio_half] = false,
            "sdma_descq_cnt" sdma_descq_cnt: u32 [sdma_descq_cnt] = 2048,
            /// Module parameters `sdma_idle_cnt` (sdma.c: the engines'
            /// idle count in ns, upstream's initializer 250) and
            /// `num_sdma` (`mod_num_sdma`: the engines probe makes, 0 for
            /// the chip's), each set to its field when its `_set` says,
            /// as `sdma_descq_cnt` is.
            "sdma_idle_cnt_set" sdma_idle_cnt_set: bool [ratio_half] = false,
            "sdma_idle_cnt" sdma_idle_cnt: u32 [sdma_idle_cnt_param] = 250,
            "mod_num_sdma_set" mod_num_sdma_set: bool [ratio_half] = false,
            "mod_num_sdma" mod_num_sdma: u32 [mod_num_sdma] = 0,
            /// What the chip's `SEND_DMA_ENGINES` and `SEND_DMA_MEM_SIZE`
            /// read (`chip_sdma_engines()`, `chip_sdma_mem_size()`: the
            /// engines `sdma_init()` makes and the SDMA memory they share).
            "chip_sdma_engines" chip_sdma_engines: u8 [chip_sdma_engines] = 16,
            "chip_sdma_mem_size" chip_sdma_mem_size: u32 [chip_sdma_mem_size] = 0x10000,
            /// What chip.c's `ns_to_cclock()` answers (a boundary,
            /// journalled): the idle count in chip clocks.
            "ns_to_cclock" ns_to_cclock: u32 [ns_to_cclock] = 0,
            /// Every port's `ppd->vls_operational`: the VLs `sdma_init()`
            /// maps the engines to.
            "vls_operational" vls_operational: u8 [vls_operational] = 1,
            /// What engine `i`'s `SEND_EGRESS_SEND_DMA_STATUS` reads: its
            /// packets in the egress FIFO (bits 0-13).
            "sde_egress_csr" sde_egress_csr: PerIndex<u64, 16> [sde_egress_csr] = PerIndex::new(),
            /// Whether the world sets pio.c's static configuration of the
            /// send contexts (`sc_config_sizes`, `sc_mem_pool_config`) to
            /// the four fields below; otherwise it is upstream's
            /// initializers (restored before every call), so a patch that
            /// changes them changes behaviour.
            "sc_config_set" sc_config_set: bool [sc_config_set] = false,
            /// `sc_config_sizes[t].size` and `.count` for each type `t`
            /// (pio.h's order; `short int`s: -1, -2 a memory pool, -1, -2,
            /// -3 a count per VL, CPU, kernel receive queue); the defaults
            /// are upstream's initializers.
            "sc_config_size" sc_config_size: [u16; 4] [sc_config_size] = [0xffff, 102, 32, 0xffff],
            "sc_config_count" sc_config_count: [u16; 4] [sc_config_count] = [0xffff, 1, 0xfffd, 0xfffe],
            /// `sc_mem_pool_config[p]`'s centipercent and absolute block
            /// count for each pool `p` (`int`s set from `short int`s: a
            /// negative one is unused); the defaults are upstream's.
            "sc_pool_centipercent" sc_pool_centipercent: [u16; 2] [sc_pool_centipercent] = [10000, 0],
            "sc_pool_blocks" sc_pool_blocks: [u16; 2] [sc_pool_blocks] = [0xffff, 0xffff],
            /// `dd->sdma_rht` is set (`sdma_init()` creates it empty), and
            /// its maps (`sdma_rht`, by CPU then VL): the engines user
            /// processes pinned to a CPU send on, as the sysfs `cpu_list`
            /// files of the engines set them. Built for the calls that look
            /// it up (`sdma_init()` makes its own).
            "sdma_rht_set" sdma_rht_set: bool [sdma_rht_set] = false,
            "sdma_rht" sdma_rht: Slots<UserSdeMap, RHT_SLOTS> [sdma_rht] = Slots::new(),
            /// `dd->sdma_map->engine_to_vl[i]` of engine `i`, when the world
            /// has a map (a shorter list: 0 for the rest).
            "sdma_engine_to_vl" sdma_engine_to_vl: Slots<u8, 16> [sdma_engine_to_vl] = Slots::new(),
            /// `current->nr_cpus_allowed`: the CPUs the calling task may
            /// run on; `smp_processor_id()`: the one it runs on.
            "nr_cpus_allowed" nr_cpus_allowed: i32 [nr_cpus_allowed] = 1,
            "this_cpu" this_cpu: u8 [this_cpu] = 0,
            /// `cpu_online_mask`: the CPUs online (CPUs 0..63).
            "cpu_online" cpu_online: CpuMask [cpu_online] = CpuMask(0xf),
        }
    };
}

world_schema! {
    record [
        /// The device and module parameters a QP reaches, declared once in
        /// [`world_schema!`](crate::world_schema). Plain data of fixed
        /// size, so `Copy`: a generated run copies a world into each vector
        /// that shares it.
        #[derive(Copy)]
        World
    ]
}

/// The NUMA nodes a world's machine may have (`MAX_NUMNODES`).
pub const MAX_NUMNODES: u8 = 8;

impl World {
    /// Whether `dd->flags` has `f`.
    pub fn has(&self, f: DevFlag) -> bool {
        self.dev_flags.contains(&f)
    }

    /// The possible NUMA nodes, node i in bit i.
    pub fn possible_nodes_mask(&self) -> u8 {
        ((1u16 << self.possible_nodes.min(MAX_NUMNODES)) - 1) as u8
    }
}
