//! Fuzz target `position`: see `kalah_fuzz::position` for what it feeds and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| kalah_fuzz::position::check(data));
