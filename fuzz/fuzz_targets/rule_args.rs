//! Fuzz target `rule_args`: see `kalah_fuzz::rule_args` for what it feeds and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| kalah_fuzz::rule_args::check(data));
