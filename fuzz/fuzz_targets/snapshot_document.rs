#![no_main]
//! Fuzz target `snapshot_document`; the work is in `fuzz/harness.rs` (shared with `tests/fuzz_regressions.rs`).

#[path = "../harness.rs"]
#[allow(dead_code)]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::snapshot_document(data));
