//! The committed tables of `data/tables/` (written by `kalah table`,
//! `tools/table.sh`) agree with the naive reference solver wherever it
//! solves the start in a moment: every exact entry of every rule set with
//! at most 4 houses a side and 12 seeds on the board, clockwise sowing
//! included (Kalah(6,1) clockwise takes the reference 10-20 s a rule set).

use std::path::Path;

use kalah_core::Rules;
use kalah_reference::{solve, RefPosition};

/// One rule option of a table file, from its `rules` object.
fn option<T: std::str::FromStr>(file: &str, json: &serde_json::Value, name: &str) -> T {
    let text = json["rules"][name].as_str().unwrap_or_else(|| panic!("{file}: no rules.{name}"));
    text.parse().unwrap_or_else(|_| panic!("{file}: rules.{name} {text:?} is not a rule name"))
}

/// The rules of one table file.
fn rules_of(file: &str, json: &serde_json::Value) -> Rules {
    Rules {
        capture: option(file, json, "capture"),
        end: option(file, json, "end"),
        leftovers: option(file, json, "leftovers"),
        sowing: option(file, json, "sowing"),
        relay: option(file, json, "relay"),
    }
}

#[test]
fn committed_tables_agree_with_the_reference_on_small_boards() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/tables");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 48, "every rule set of RULES.md, one file each, in {}", dir.display());
    let mut checked = 0;
    let mut rule_sets = std::collections::HashSet::new();
    for path in &files {
        let name = path.file_name().expect("a file name").to_string_lossy().to_string();
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let json: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let rules = rules_of(&name, &json);
        assert!(rule_sets.insert(rules), "{name}: a second file for {rules:?}");
        let entries = json["entries"].as_array().unwrap_or_else(|| panic!("{name}: no entries"));
        for e in entries {
            let h = e["houses"].as_u64().expect("houses") as usize;
            let s = e["seeds"].as_u64().expect("seeds") as u32;
            if h > 4 || 2 * h as u32 * s > 12 || e["exact"] != true {
                continue;
            }
            let (value, _) = solve(&rules, &RefPosition::start(h, s));
            assert_eq!(e["value"].as_i64(), Some(value as i64), "{name}: Kalah({h},{s})");
            checked += 1;
        }
    }
    // At least the 10 sizes of at most 4 houses, 12 seeds and 4 seeds a
    // house of every rule set.
    assert!(checked >= 48 * 10, "only {checked} entries checked");
}
