//! Fuzz target `database`: see `kalah_fuzz::database` for what it feeds and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| kalah_fuzz::database::check(data));
