//! How long a call in a C world may run, and how long a worker may make
//! no progress between calls.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::build::BuildOptions;

/// The limit [`set_call_timeout`] set, in milliseconds (0: none set).
static CALL_TIMEOUT_MS: AtomicU64 = AtomicU64::new(0);

/// Sets the call limit for every later worker (the xtask's
/// `--call-timeout`); otherwise `HFI1_CALL_TIMEOUT` (seconds) or the
/// default, 2 s, scaled for the build.
pub fn set_call_timeout(d: Duration) {
    CALL_TIMEOUT_MS.store(d.as_millis().max(1) as u64, Ordering::SeqCst);
}

/// The longest a single call may run in a world built with `opts`: the
/// base limit, times 4 for a coverage or measuring world (-O0, counters) and 10 under
/// the sanitizers. Calls take microseconds; the limit is for code that
/// never returns.
pub fn call_timeout(opts: &BuildOptions) -> Duration {
    let set = CALL_TIMEOUT_MS.load(Ordering::SeqCst);
    let base = if set > 0 {
        Duration::from_millis(set)
    } else {
        std::env::var("HFI1_CALL_TIMEOUT")
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| *s > 0.0)
            .map(Duration::from_secs_f64)
            .unwrap_or(Duration::from_secs(2))
    };
    let factor = if opts.sanitize {
        10
    } else if opts.instruments() {
        4
    } else {
        1
    };
    base * factor
}

/// The limit of a call of a function already shown to hang in its world:
/// a fortieth of the call limit, at least 50 ms (calls take microseconds;
/// a call still running after 50 ms of a function that loops elsewhere is
/// taken for a hang, then confirmed alone under the same limit).
pub fn short_limit(limit: Duration) -> Duration {
    (limit / 40).max(Duration::from_millis(50)).min(limit)
}

/// How long a worker may make no progress outside any call before the
/// harness gives up on it (its own fault): ten call limits, at least 30 s.
pub fn idle_limit(call_limit: Duration) -> Duration {
    (call_limit * 10).max(Duration::from_secs(30))
}

/// How long a worker may take to start and load its world: starting a
/// sandbox and loading a world take milliseconds, and a world whose
/// load-time code never returns is stopped.
pub fn load_limit(call_limit: Duration) -> Duration {
    call_limit * 2 + Duration::from_secs(3)
}
