//! The workspace root as a package: an empty library, so that cargo-insta
//! (which looks for snapshots inside packages) finds `snapshots/`.
