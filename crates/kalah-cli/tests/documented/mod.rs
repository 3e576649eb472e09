//! Reading the examples of docs/api.md, shared by the engine's and the
//! server's tests (a folder, so that cargo does not build it as a test).

use serde_json::Value;

/// docs/api.md.
pub fn api_doc() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/api.md")).expect("docs/api.md")
}

/// The lines of the first block fenced as ```` ```tag ```` in `doc` at or
/// after byte `from`, and the byte where it ends.
pub fn block(doc: &str, tag: &str, from: usize) -> Option<(Vec<String>, usize)> {
    let open = format!("```{tag}\n");
    let start = doc[from..].find(&open)? + from + open.len();
    let end = doc[start..].find("```").expect("a closed block") + start;
    Some((doc[start..end].lines().map(str::to_string).collect(), end))
}

/// Every field shown in `expected` is in `actual` with that value; an
/// array element by element, of the same length.
pub fn shows(expected: &Value, actual: &Value) -> Result<(), String> {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            e.iter().try_for_each(|(k, v)| shows(v, a.get(k).unwrap_or(&Value::Null)).map_err(|why| format!("{k}: {why}")))
        }
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => e.iter().zip(a).try_for_each(|(e, a)| shows(e, a)),
        _ if expected == actual => Ok(()),
        _ => Err(format!("documented {expected}, answered {actual}")),
    }
}
