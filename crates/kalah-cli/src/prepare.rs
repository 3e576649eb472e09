//! `kalah serve --prepare H:N`: the databases a server prepares as it
//! starts (`kalah::service::prepare`), read from the command line.
//!
//! Kalah(6,4) over the 24-seed databases is answered with every move
//! exact in seconds wherever a player goes (docs/benchmarks/explorer.md,
//! "The explorer as players play"); each is 744 MiB (`kalah db build 6 24
//! --packed`: about two minutes on two cores, in 1.2 GiB), built within
//! the server's `--memory`, one level at a time where the whole does not
//! fit.

/// The databases prepared by default: 24 seeds of six houses.
pub const DEFAULT: &str = "6:24";

/// The databases asked for: `H:N` each, or `none`, each one a server
/// prepares (`kalah::service::prepare::check`).
pub fn parse(asked: &[String]) -> anyhow::Result<Vec<(usize, u32)>> {
    let mut out = Vec::new();
    for spec in asked {
        if spec == "none" {
            continue;
        }
        let bad = || crate::common::user(format!("--prepare {spec}: give houses and seeds as H:N (such as 6:24), or none"));
        let (h, n) = spec.split_once(':').ok_or_else(bad)?;
        let (h, n): (usize, u32) = (h.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        kalah::service::prepare::check(h, n).map_err(|e| crate::common::user(format!("--prepare {e}")))?;
        out.push((h, n));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_to_prepare_reads_or_is_refused() {
        assert_eq!(parse(&["6:24".into()]).unwrap(), vec![(6, 24)]);
        assert_eq!(parse(&["none".into()]).unwrap(), vec![]);
        for bad in ["6", "x:3", "9:3", "6:0", "6:40"] {
            assert!(parse(&[bad.to_string()]).is_err(), "{bad}");
        }
    }
}
