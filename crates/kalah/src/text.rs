//! Numbers and values as people read them, shared by the library's
//! messages and its doors.

use kalah_core::{Rules, Side};
use kalah_db::human_bytes;
use kalah_search::Bounded;

pub use kalah_core::article;

/// `1234567` as `1,234,567`.
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A signed value: `+10`, `0`, `-4`.
pub fn signed(v: i32) -> String {
    if v > 0 {
        format!("+{v}")
    } else {
        v.to_string()
    }
}

/// A value or its bounds: `+4`, or `-2..+6` where they do not meet.
pub fn bounded(b: Bounded) -> String {
    if b.is_exact() {
        signed(b.lower)
    } else {
        format!("{}..{}", signed(b.lower), signed(b.upper))
    }
}

/// "South wins by 10", "North wins by 2", "a draw": `value` is the mover's.
pub fn verdict(mover: Side, value: i32) -> String {
    match value {
        0 => "a draw".to_string(),
        v if v > 0 => format!("{} wins by {v}", mover.name()),
        v => format!("{} wins by {}", mover.other().name(), -v),
    }
}

/// A size in its unit after its article: "an 8.0 GiB", "a 128.0 MiB".
pub fn a_size(bytes: u64) -> String {
    let size = human_bytes(bytes);
    format!("{} {size}", article_of(&size))
}

/// The article before a figure written out, as "8.0 GiB": by its whole part.
fn article_of(text: &str) -> &'static str {
    let whole: String = text.chars().take_while(char::is_ascii_digit).collect();
    whole.parse().map_or("a", article)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn articles_before_figures_follow_their_whole_part() {
        assert_eq!(article_of("8.0 GiB"), "an");
        assert_eq!(article_of("18.5 MiB"), "an");
        assert_eq!(article_of("1.0 GiB"), "a");
        assert_eq!(article_of("95.4 TiB"), "a");
        assert_eq!(article_of("no figure"), "a");
    }

    #[test]
    fn numbers_and_values_read_as_people_write_them() {
        assert_eq!(group(1_234_567), "1,234,567");
        assert_eq!(group(999), "999");
        assert_eq!((signed(10), signed(0), signed(-4)), ("+10".to_string(), "0".to_string(), "-4".to_string()));
        assert_eq!(verdict(Side::North, -3), "South wins by 3");
        assert_eq!(verdict(Side::South, 0), "a draw");
        assert_eq!(bounded(Bounded { lower: -2, upper: 6 }), "-2..+6");
        assert_eq!(bounded(Bounded { lower: 4, upper: 4 }), "+4");
    }
}

/// Rules as a JSON object of their option names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RulesView {
    capture: &'static str,
    end: &'static str,
    leftovers: &'static str,
    sowing: &'static str,
    relay: &'static str,
}

/// A path as people read it, for serde's `serialize_with`.
pub(crate) fn display_path<S: serde::Serializer>(path: &std::path::Path, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.collect_str(&path.display())
}

/// Rules as their [`RulesView`] object, for serde's `serialize_with`.
pub(crate) fn serialize_rules<S: serde::Serializer>(rules: &Rules, s: S) -> std::result::Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&RulesView::from(*rules), s)
}

impl From<Rules> for RulesView {
    fn from(r: Rules) -> RulesView {
        RulesView { capture: r.capture.name(), end: r.end.name(), leftovers: r.leftovers.name(), sowing: r.sowing.name(), relay: r.relay.name() }
    }
}
