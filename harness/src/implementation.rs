//! Which [`Implementation`] the harness judges upstream against: the
//! project's model unless a program sets another first thing in `main`
//! (before `cworld::worker_main_if_requested`, so that its workers, which
//! re-execute the same program, judge the same one).

use std::sync::OnceLock;

pub use hfi1_model::Implementation;

static CHOSEN: OnceLock<Box<dyn Implementation>> = OnceLock::new();

/// Makes `imp` the implementation every check uses in this process. Call it
/// once, first thing in `main`; a second call (or a call after the first
/// check chose the model) is refused and gives `imp` back.
pub fn set(imp: Box<dyn Implementation>) -> Result<(), Box<dyn Implementation>> {
    CHOSEN.set(imp)
}

/// The implementation checks use: the one [`set`] chose, else the model.
pub fn get() -> &'static dyn Implementation {
    CHOSEN.get_or_init(|| Box::new(hfi1_model::Model)).as_ref()
}
