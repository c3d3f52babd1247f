//! The worker's own confinement: a seccomp filter, installed before it
//! loads a world, that stops it on every system call upstream code has no
//! business making, with a line naming the call.

use anyhow::{bail, Result};

/// The environment variable that tells a worker to confine itself.
pub const CONFINE_ENV: &str = "HFI1_CONFORMANCE_CONFINE";

/// The system calls a worker refuses, with the name a report gives them.
/// Upstream code and the shim need none of them; each is a way out of the
/// sandbox or a way around its accounting.
const DENIED: &[(&str, libc::c_long)] = &[
    ("socket", libc::SYS_socket),
    ("socketpair", libc::SYS_socketpair),
    ("connect", libc::SYS_connect),
    ("bind", libc::SYS_bind),
    ("listen", libc::SYS_listen),
    ("accept", libc::SYS_accept),
    ("accept4", libc::SYS_accept4),
    ("execve", libc::SYS_execve),
    ("execveat", libc::SYS_execveat),
    ("fork", libc::SYS_fork),
    ("vfork", libc::SYS_vfork),
    ("ptrace", libc::SYS_ptrace),
    ("process_vm_readv", libc::SYS_process_vm_readv),
    ("process_vm_writev", libc::SYS_process_vm_writev),
    ("mount", libc::SYS_mount),
    ("umount2", libc::SYS_umount2),
    ("pivot_root", libc::SYS_pivot_root),
    ("chroot", libc::SYS_chroot),
    ("unshare", libc::SYS_unshare),
    ("setns", libc::SYS_setns),
    ("bpf", libc::SYS_bpf),
    ("perf_event_open", libc::SYS_perf_event_open),
    ("keyctl", libc::SYS_keyctl),
    ("add_key", libc::SYS_add_key),
    ("request_key", libc::SYS_request_key),
    ("init_module", libc::SYS_init_module),
    ("finit_module", libc::SYS_finit_module),
    ("delete_module", libc::SYS_delete_module),
    ("kexec_load", libc::SYS_kexec_load),
    ("io_uring_setup", libc::SYS_io_uring_setup),
    ("userfaultfd", libc::SYS_userfaultfd),
    ("personality", libc::SYS_personality),
];

/// The name of a denied system call.
pub fn denied_name(nr: libc::c_long) -> Option<&'static str> {
    if nr == libc::SYS_clone {
        return Some("clone (a new process)");
    }
    DENIED.iter().find(|d| d.1 == nr).map(|d| d.0)
}

/// The line a confined worker writes to stderr when it stops on a denied
/// system call; `cworld` finds it in the worker's log.
pub const DENIED_MARK: &str = "hfi1 worker: denied: ";

/// The SIGSYS handler: writes [`DENIED_MARK`] and the call's name to
/// stderr and exits, using only async-signal-safe calls.
extern "C" fn on_sigsys(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // The kernel's siginfo for SIGSYS: si_syscall is an int at offset 24 on
    // x86-64 and aarch64 (after si_call_addr); the libc crate has no
    // accessor.
    // SAFETY: the kernel passes a valid siginfo_t to an SA_SIGINFO handler.
    let nr = unsafe { *(info as *const u8).add(24).cast::<libc::c_int>() } as libc::c_long;
    let name = denied_name(nr).unwrap_or("a system call the sandbox refuses");
    let mut buf = [0u8; 128];
    let mut n = 0;
    for part in [DENIED_MARK.as_bytes(), name.as_bytes(), b"\n"] {
        for b in part {
            if n < buf.len() {
                buf[n] = *b;
                n += 1;
            }
        }
    }
    // SAFETY: write and _exit are async-signal-safe.
    unsafe {
        libc::write(2, buf.as_ptr().cast(), n);
        libc::_exit(125);
    }
}

/// Confines this (worker) process before it loads a world: a seccomp filter
/// that stops the process on every system call in [`DENIED`] and on `clone`
/// without `CLONE_THREAD` (threads stay possible: ASan's RSS limit uses
/// one), after writing `hfi1 worker: denied: NAME` to stderr; `clone3`
/// fails with ENOSYS so that the C library falls back to `clone`, whose
/// flags a filter can see.
pub fn confine_worker() -> Result<()> {
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule,
    };
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|e| anyhow::anyhow!("seccomp on {}: {e:?}", std::env::consts::ARCH))?;
    let mut rules: std::collections::BTreeMap<i64, Vec<SeccompRule>> =
        DENIED.iter().map(|(_, nr)| (*nr, vec![])).collect();
    let new_process = SeccompCondition::new(
        0,
        SeccompCmpArgLen::Qword,
        SeccompCmpOp::MaskedEq(libc::CLONE_THREAD as u64),
        0,
    )
    .map_err(|e| anyhow::anyhow!("seccomp condition: {e:?}"))?;
    rules.insert(
        libc::SYS_clone,
        vec![SeccompRule::new(vec![new_process])
            .map_err(|e| anyhow::anyhow!("seccomp rule: {e:?}"))?],
    );
    let trap: BpfProgram =
        SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Trap, arch)
            .and_then(|f| f.try_into())
            .map_err(|e| anyhow::anyhow!("seccomp filter: {e:?}"))?;
    let clone3: BpfProgram = SeccompFilter::new(
        [(libc::SYS_clone3, vec![])].into_iter().collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .and_then(|f| f.try_into())
    .map_err(|e| anyhow::anyhow!("seccomp filter: {e:?}"))?;
    // SAFETY: installs a handler for SIGSYS that only uses
    // async-signal-safe calls.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigsys as *const () as usize;
        sa.sa_flags = libc::SA_SIGINFO;
        if libc::sigaction(libc::SIGSYS, &sa, std::ptr::null_mut()) != 0 {
            bail!("sigaction(SIGSYS): {}", std::io::Error::last_os_error());
        }
    }
    seccompiler::apply_filter(&clone3).map_err(|e| anyhow::anyhow!("seccomp: {e}"))?;
    seccompiler::apply_filter(&trap).map_err(|e| anyhow::anyhow!("seccomp: {e}"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_denied_call_has_a_name() {
        for (name, nr) in DENIED {
            assert_eq!(denied_name(*nr), Some(*name));
        }
        assert_eq!(denied_name(libc::SYS_read), None);
    }
}
