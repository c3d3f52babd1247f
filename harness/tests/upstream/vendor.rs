//! A vendor overlay: a vendor-shaped tree made at test time, composed
//! with the series' tree under a profile.

use harness::corpus;
use harness::cworld::{self, BuildOptions};
use harness::kernel::KernelTree;
use harness::model::types::Func;
use libtest_mimic::Failed;

use crate::common::copy_tree;

/// A vendor-shaped tree of our own, made from `tree`'s hfi1 driver at
/// test time (nothing of a vendor's is committed): no top Makefile, an
/// `include/rdma/rdmavt_qp.h` overlay reaching the kernel's with
/// `#include_next`, a `compat/compat.h` defining a compat macro, and a
/// qp.c whose qp_iter_print prints one more word only when the compat
/// macro and the overlay header are both in effect (or calls two symbols
/// no world provides, under another macro).
fn vendor_fixture(tree: &KernelTree, dir: &std::path::Path) -> Result<(), Failed> {
    let e = |e: std::io::Error| Failed::from(e.to_string());
    let _ = std::fs::remove_dir_all(dir);
    let hfi1 = "drivers/infiniband/hw/hfi1";
    copy_tree(&tree.path(hfi1), &dir.join(hfi1)).map_err(e)?;
    std::fs::create_dir_all(dir.join("include/rdma")).map_err(e)?;
    std::fs::create_dir_all(dir.join("compat")).map_err(e)?;
    std::fs::write(
        dir.join("include/rdma/rdmavt_qp.h"),
        "#include_next <rdma/rdmavt_qp.h>\n#define RVT_VENDOR_OVERLAY 1\n",
    )
    .map_err(e)?;
    std::fs::write(
        dir.join("compat/compat.h"),
        "#define HAVE_VENDOR_EXTRA 1\nstruct rvt_qp;\nint vendor_tid_print(struct rvt_qp *qp);\n\
         int vendor_opfn(struct rvt_qp *qp);\n",
    )
    .map_err(e)?;
    let qp = dir.join(hfi1).join("qp.c");
    let src = std::fs::read_to_string(&qp).map_err(e)?;
    let at = src
        .find("void qp_iter_print(")
        .and_then(|i| src[i..].find("\tseq_printf(s,").map(|j| i + j))
        .ok_or("no seq_printf in qp_iter_print")?;
    let insert = "#if defined(HAVE_VENDOR_EXTRA) && defined(RVT_VENDOR_OVERLAY)\n\
                  \tseq_printf(s, \"VENDOR \");\n#endif\n\
                  #ifdef HAVE_VENDOR_CALLS\n\tvendor_tid_print(qp);\n\tvendor_opfn(qp);\n#endif\n";
    std::fs::write(&qp, format!("{}{insert}{}", &src[..at], &src[at..])).map_err(e)?;
    Ok(())
}

/// A vendor overlay on the series' tree: refused as a kernel tree with
/// the way to pass it; composed with its profile, it differs from upstream
/// in qp_iter_print only, and only when its compat macro is on (forced by
/// its compat header, or derived from the base's headers); symbols no
/// world provides are listed all at once with where they are used.
pub fn vendor_overlay(tree: &KernelTree) -> Result<(), Failed> {
    use harness::kernel::overlay::{compose, Have, Profile};
    let dir = std::env::temp_dir().join(format!(
        "hfi1-vendor-{}-{}-{:?}",
        tree.version,
        std::process::id(),
        std::thread::current().id()
    ));
    vendor_fixture(tree, &dir)?;
    let result = (|| -> Result<(), Failed> {
        match KernelTree::open(&dir) {
            Err(e) if format!("{e:#}").contains("--overlay") => {}
            other => return Err(format!("opened as a kernel: {other:?}").into()),
        }
        let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| e.to_string())?;
        let base = cworld::build(tree, &BuildOptions::default()).map_err(|e| format!("{e:#}"))?;
        let shapes = |p: &Profile| -> Result<Vec<(Func, Vec<String>)>, Failed> {
            let t = compose(tree, &dir, p).map_err(|e| format!("{e:#}"))?;
            let w = cworld::build(&t, &BuildOptions::default()).map_err(|e| format!("{e:#}"))?;
            let c = harness::judge::compare::compare(
                &base,
                &w,
                &vectors,
                Func::ALL,
                100,
                1,
                &mut |_| {},
            )
            .map_err(|e| format!("{e:#}"))?;
            Ok(c.groups.iter().map(|g| (g.func, g.shape.clone())).collect())
        };
        let printed = vec![(Func::QpIterPrint, vec!["text".to_owned()])];
        let forced = Profile {
            force_include: vec!["compat/compat.h".into()],
            ..Default::default()
        };
        let s = shapes(&forced)?;
        if s != printed {
            return Err(format!("forced compat.h: {s:?}").into());
        }
        let s = shapes(&Profile::default())?;
        if !s.is_empty() {
            return Err(format!("no profile: {s:?}").into());
        }
        let mut derived = Profile::default();
        derived.have.insert(
            "HAVE_VENDOR_EXTRA".into(),
            Have {
                file: "include/rdma/rdmavt_qp.h".into(),
                contains: "struct rvt_qp".into(),
            },
        );
        let s = shapes(&derived)?;
        if s != printed {
            return Err(format!("derived HAVE_: {s:?}").into());
        }
        let calls = Profile {
            force_include: vec!["compat/compat.h".into()],
            defines: vec!["HAVE_VENDOR_CALLS".into()],
            ..Default::default()
        };
        let t = compose(tree, &dir, &calls).map_err(|e| format!("{e:#}"))?;
        match cworld::build(&t, &BuildOptions::default()) {
            Err(e) => {
                let m = format!("{e:#}");
                let named = |s: &str| {
                    m.lines()
                        .any(|l| l.contains(&format!("{s}: used at")) && l.contains("qp.c:"))
                };
                if !named("vendor_tid_print") || !named("vendor_opfn") {
                    return Err(format!("missing symbols not listed: {m}").into());
                }
            }
            Ok(_) => return Err("a world linked symbols nobody provides".into()),
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}
