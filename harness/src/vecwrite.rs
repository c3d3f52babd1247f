//! Writes a call as a vector file the corpus loads: every field explicit,
//! so the file stands alone (it needs only `worlds.toml`'s `default` to
//! exist). Used for minimised findings of `--random`.

use std::fmt::Write as _;

use crate::model::types::*;

fn flag_names<T: Symbol>(v: Flags<T>) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("\"{}\"", x.name())).collect();
    format!("[{}]", items.join(", "))
}

fn names<T: std::fmt::Display>(v: &[T]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("\"{x}\"")).collect();
    format!("[{}]", items.join(", "))
}

fn idx(v: Option<u8>) -> String {
    v.map_or("\"none\"".into(), |i| i.to_string())
}

fn map<T: TableIdx>(m: &Option<VlMap<T>>, f: impl Fn(T) -> u8) -> String {
    let Some(m) = m else {
        return "\"none\"".into();
    };
    let elems: Vec<String> = m
        .elems
        .iter()
        .map(|e| match e {
            None => "\"none\"".into(),
            Some(e) => format!(
                "{{ mask = {}, entries = [{}] }}",
                e.mask,
                e.entries
                    .iter()
                    .map(|x| idx(x.get().map(&f)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
        .collect();
    format!("{{ mask = {}, elems = [{}] }}", m.mask, elems.join(", "))
}

fn arr<T: std::fmt::Display>(v: &[T]) -> String {
    format!(
        "[{}]",
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// One `[[case]]` table for `c`.
pub fn case_toml(c: &Call, name: &str, branch: &str) -> String {
    let w = &c.world;
    let q = &c.qp;
    let mut s = String::new();
    let _ = writeln!(s, "[[case]]");
    let _ = writeln!(s, "name = \"{name}\"");
    let _ = writeln!(s, "branch = \"{}\"", branch.replace('"', "'"));
    let _ = writeln!(s, "fn = \"{}\"", c.func);
    let _ = writeln!(s, "preset = \"default\"");
    let _ = writeln!(s, "call_send = {}", c.call_send);
    let _ = writeln!(s, "sc5 = {}", c.sc5.0);
    let _ = writeln!(s, "vl = {}", c.vl.0);
    let _ = writeln!(s, "selector = {}", c.selector);
    let _ = writeln!(s, "arg = {}", c.arg);
    let _ = writeln!(s, "flags = {}", names(&c.flags_arg));
    if c.attr_av {
        let _ = writeln!(
            s,
            "attr_ah = {{ sl = {}, port = {} }}",
            c.attr_ah.sl, c.attr_ah.port
        );
    }
    if c.attr_alt_path {
        let _ = writeln!(
            s,
            "attr_alt_ah = {{ sl = {}, port = {} }}",
            c.attr_alt_ah.sl, c.attr_alt_ah.port
        );
    }
    if let Some(m) = c.attr_path_mig {
        let _ = writeln!(s, "path_mig_state = \"{m}\"");
    }
    let _ = writeln!(s, "post_opcode = \"{}\"", c.post_opcode);
    let iter: Vec<String> = c
        .iter
        .iter()
        .map(|i| {
            format!(
                "{{ type = \"{}\", num = {}, port = {}, state = \"{}\", sl = {}, last_wqe = {} }}",
                i.qp_type, i.num, i.port, i.state, i.remote_sl, i.error_qp_ret
            )
        })
        .collect();
    let _ = writeln!(s, "iter = [{}]", iter.join(", "));
    let _ = writeln!(s, "world.dev_flags = {}", names(&w.dev_flags));
    let _ = writeln!(s, "world.qos_shift = {}", w.qos_shift);
    let _ = writeln!(s, "world.num_vls = {}", w.num_vls);
    let _ = writeln!(s, "world.piothreshold = {}", w.piothreshold);
    let _ = writeln!(s, "world.node = {}", w.node);
    let cpus: Vec<u32> = (0..64).filter(|i| w.node_cpus & (1 << i) != 0).collect();
    let _ = writeln!(s, "world.node_cpus = {}", arr(&cpus));
    let _ = writeln!(s, "world.sc_to_vl = {}", arr(&w.sc_to_vl));
    let _ = writeln!(s, "world.vl_mtu = {}", arr(&w.vl_mtu));
    let _ = writeln!(
        s,
        "world.vl_sc = [{}]",
        w.vl_sc
            .iter()
            .map(|x| idx(x.map(|i| i.0)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(s, "world.sdma_cpus = {}", arr(&w.sdma_cpus));
    let _ = writeln!(s, "world.num_send_contexts = {}", w.num_send_contexts);
    let _ = writeln!(s, "world.sdma_map = {}", map(&w.sdma_map, |e| e.0));
    let _ = writeln!(s, "world.pio_map = {}", map(&w.pio_map, |e| e.0));
    let _ = writeln!(
        s,
        "world.sl_to_sc = [{}]",
        w.sl_to_sc
            .iter()
            .map(|t| arr(t))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(s, "world.port_ibmtu = {}", arr(&w.port_ibmtu));
    let _ = writeln!(s, "world.port_lid = {}", arr(&w.port_lid));
    let _ = writeln!(
        s,
        "world.port_gid_prefix = [{}]",
        w.port_gid_prefix
            .iter()
            .map(|p| format!("\"0x{p:x}\""))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(s, "world.port_qp0 = {}", arr(&w.port_qp0));
    let _ = writeln!(s, "world.port_qp1 = {}", arr(&w.port_qp1));
    let _ = writeln!(s, "world.max_rdma_atomic = {}", w.max_rdma_atomic);
    let _ = writeln!(s, "world.extra_rdma_atomic = {}", w.extra_rdma_atomic);
    let _ = writeln!(s, "world.queue_work_ret = {}", w.queue_work_ret);
    let _ = writeln!(s, "world.tid_send_ret = {}", w.tid_send_ret);
    let _ = writeln!(s, "world.cancel_work_ret = {}", w.cancel_work_ret);
    let _ = writeln!(s, "world.alloc_fail = {}", w.alloc_fail);
    let _ = writeln!(s, "qp.type = \"{}\"", q.qp_type);
    let _ = writeln!(s, "qp.num = {}", q.num);
    let _ = writeln!(s, "qp.port = {}", q.port);
    let _ = writeln!(s, "qp.pmtu = {}", q.pmtu);
    let _ = writeln!(s, "qp.state = \"{}\"", q.state);
    let _ = writeln!(s, "qp.s_flags = {}", flag_names(q.s_flags));
    let _ = writeln!(s, "qp.priv_flags = {}", flag_names(q.priv_flags));
    let _ = writeln!(s, "qp.iowait_flags = {}", flag_names(q.iowait_flags));
    let _ = writeln!(s, "qp.s_sde = {}", idx(q.s_sde.map(|e| e.0)));
    let _ = writeln!(
        s,
        "qp.s_sendcontext = {}",
        idx(q.s_sendcontext.map(|e| e.0))
    );
    for (k, v) in [
        ("s_sc", i64::from(q.s_sc)),
        ("sdma_busy", i64::from(q.sdma_busy)),
        ("pio_busy", i64::from(q.pio_busy)),
        ("refcount", i64::from(q.refcount)),
        ("remote_sl", i64::from(q.remote_sl)),
        ("remote_dlid", i64::from(q.remote_dlid)),
        ("remote_qpn", i64::from(q.remote_qpn)),
        ("timeout", i64::from(q.timeout)),
        ("s_lsn", i64::from(q.s_lsn)),
        ("s_last_psn", i64::from(q.s_last_psn)),
        ("s_psn", i64::from(q.s_psn)),
        ("s_next_psn", i64::from(q.s_next_psn)),
        ("s_sending_psn", i64::from(q.s_sending_psn)),
        ("s_sending_hpsn", i64::from(q.s_sending_hpsn)),
        ("r_psn", i64::from(q.r_psn)),
        ("s_last", i64::from(q.s_last)),
        ("s_acked", i64::from(q.s_acked)),
        ("s_cur", i64::from(q.s_cur)),
        ("s_tail", i64::from(q.s_tail)),
        ("s_head", i64::from(q.s_head)),
        ("s_size", i64::from(q.s_size)),
        ("s_avail", i64::from(q.s_avail)),
        ("s_tail_ack_queue", i64::from(q.s_tail_ack_queue)),
        ("r_head_ack_queue", i64::from(q.r_head_ack_queue)),
        ("s_retry", i64::from(q.s_retry)),
        ("s_retry_cnt", i64::from(q.s_retry_cnt)),
        ("s_rnr_retry_cnt", i64::from(q.s_rnr_retry_cnt)),
        ("s_rnr_retry", i64::from(q.s_rnr_retry)),
        ("pid", i64::from(q.pid)),
        ("s_state", i64::from(q.s_state)),
        ("s_ack_state", i64::from(q.s_ack_state)),
        ("r_min_rnr_timer", i64::from(q.r_min_rnr_timer)),
        ("cq_head", i64::from(q.cq_head)),
        ("cq_tail", i64::from(q.cq_tail)),
        ("rq_size", i64::from(q.rq_size)),
        ("s_ahgidx", i64::from(q.s_ahgidx)),
        ("hdr_type", i64::from(q.hdr_type)),
        ("alt_sl", i64::from(q.alt_sl)),
        ("alt_port", i64::from(q.alt_port)),
        ("alt_dlid", i64::from(q.alt_dlid)),
        ("s_pkey_index", i64::from(q.s_pkey_index)),
        ("s_alt_pkey_index", i64::from(q.s_alt_pkey_index)),
    ] {
        let _ = writeln!(s, "qp.{k} = {v}");
    }
    let _ = writeln!(s, "qp.ib_tx_queued = {}", q.ib_tx_queued);
    let _ = writeln!(s, "qp.on_wait_list = {}", q.on_wait_list);
    let _ = writeln!(s, "qp.wait_lock_stale = {}", q.wait_lock_stale);
    let _ = writeln!(s, "qp.cq_user = {}", q.cq_user);
    let _ = writeln!(s, "qp.remote_grh = {}", q.remote_grh);
    let _ = writeln!(s, "qp.remote_gid_prefix = \"0x{:x}\"", q.remote_gid_prefix);
    let _ = writeln!(s, "qp.remote_gid_iid = \"0x{:x}\"", q.remote_gid_iid);
    let _ = writeln!(s, "qp.remote_make_grd = {}", q.remote_make_grd);
    if let Some(n) = q.rdma_mr_refs {
        let _ = writeln!(s, "qp.rdma_mr_refs = {n}");
    }
    let _ = writeln!(s, "qp.mig_state = \"{}\"", q.mig_state);
    let _ = writeln!(
        s,
        "qp.srq_size = {}",
        q.srq_size.map_or("\"none\"".into(), |n| n.to_string())
    );
    match &q.ack_queue {
        None => {
            let _ = writeln!(s, "qp.ack_queue = \"none\"");
        }
        Some(a) => {
            let e: Vec<String> = a
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    format!(
                        "{i} = {{ opcode = {}, psn = {}, lpsn = {} }}",
                        e.opcode, e.psn, e.lpsn
                    )
                })
                .collect();
            let _ = writeln!(s, "qp.ack_queue = {{ {} }}", e.join(", "));
        }
    }
    let sq: Vec<String> = q
        .send_queue
        .iter()
        .enumerate()
        .map(|(i, e)| format!("{i} = {{ opcode = \"{}\", ssn = {} }}", e.opcode, e.ssn))
        .collect();
    let _ = writeln!(s, "qp.send_queue = {{ {} }}", sq.join(", "));
    let _ = writeln!(s, "wqe.length = {}", c.wqe.length);
    let _ = writeln!(s, "wqe.opcode = \"{}\"", c.wqe.opcode);
    let _ = writeln!(s, "wqe.priv = {}", c.wqe.has_priv);
    match c.wqe.ah {
        None => {
            let _ = writeln!(s, "wqe.ah = \"none\"");
        }
        Some(a) => {
            let _ = writeln!(
                s,
                "wqe.ah = {{ log_pmtu = {}, sl = {}, port = {} }}",
                a.log_pmtu, a.sl.0, a.port
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::seeded_call;
    use crate::vector::{parse_file, Presets};
    use std::path::Path;

    /// Every generated call survives being written out and read back.
    #[test]
    fn written_vectors_read_back_equal() {
        let presets =
            Presets::load(&crate::vector::corpus_dir().join("worlds.toml")).expect("worlds.toml");
        for f in Func::ALL {
            for i in 0..20 {
                let c = seeded_call(5, *f, i);
                let text = case_toml(&c, "x", "generated");
                let v = parse_file(Path::new("found.toml"), &text, &presets)
                    .unwrap_or_else(|e| panic!("{e}\n{text}"));
                assert_eq!(v[0].call, c, "{f} #{i}\n{text}");
            }
        }
    }
}
