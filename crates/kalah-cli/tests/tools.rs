//! The tools' one way to write a result (`tools/write_to.sh`, used by
//! tools/table.sh, openings.sh and kalah66.sh): a failed command leaves
//! the file as it was, a second writer is refused while the first runs.

use std::path::Path;
use std::process::Command;

fn write_to(dir: &Path, command: &str) -> (Option<i32>, String) {
    let helper = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/write_to.sh");
    let script = format!(". '{}'; {command}", helper.display());
    let out = Command::new("bash").arg("-c").arg(script).current_dir(dir).output().expect("bash");
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_result_is_written_whole_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out/r.json");
    assert_eq!(write_to(dir.path(), "write_to out/r.json echo first").0, Some(0));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "first\n");
    // A command that fails half way: the file is as it was, no partial file left.
    let (code, said) = write_to(dir.path(), "write_to out/r.json bash -c 'echo half; exit 3'");
    assert_eq!(code, Some(3), "{said}");
    assert!(said.contains("left as it was"), "{said}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "first\n");
    assert!(!dir.path().join("out/r.json.partial").exists());
    // A second writer while the first runs is refused; the first finishes.
    let (code, said) = write_to(
        dir.path(),
        "(write_to out/r.json bash -c 'sleep 1; echo slow') & sleep 0.3; write_to out/r.json echo second; rc=$?; wait; exit $rc",
    );
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("another writer holds it"), "{said}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "slow\n");
}
