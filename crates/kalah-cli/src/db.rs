//! `kalah db ...`: build, info, verify, probe, pack, unpack.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use kalah_db::{human_bytes, Database};
use serde_json::json;

use crate::common::{db_error, default_database_path, parse_position, print_json, rules_json, user, RuleArgs};
use kalah::text::group;

#[derive(Subcommand, Debug)]
pub enum DbCommand {
    /// Build the database of every board with up to N seeds (resumes an
    /// interrupted build of the same file).
    Build(BuildArgs),
    /// Describe a database file.
    Info(FileArgs),
    /// Check every checksum of a database file, or every file of a manifest
    /// (size and SHA-256 too: byte-for-byte reproduction).
    Verify(VerifyArgs),
    /// The value of a position from a database, and of every move.
    Probe(ProbeArgs),
    /// Write a compact zstd archive of a database.
    Pack(PackArgs),
    /// Restore a database from its archive, byte for byte.
    Unpack(UnpackArgs),
    /// Write a database again with its values packed (`--packed`: the bits
    /// each level needs, 5 a board up to 31 seeds), in a window of 3 or 4
    /// bits (`--bits 3|4`), or one byte a board: the same values, checked
    /// block by block, in another file or in place of this one.
    Repack(RepackArgs),
    /// The databases in a directory (default: where `solve`, `query` and
    /// `play` look for them), with the builds still under way, the archives
    /// (`FILE.kdb.zst`) and the files that are refused, and why.
    List(ListArgs),
}

#[derive(Args, Debug)]
pub struct BuildArgs {
    /// Houses a side, 1 to 8 (default 6).
    #[arg(value_name = "H")]
    houses: Option<usize>,
    /// Cover every board with up to N seeds in its houses.
    #[arg(value_name = "N")]
    max_seeds: Option<u32>,
    /// Houses a side, as H says it.
    #[arg(long = "houses", value_name = "H", conflicts_with = "houses")]
    houses_flag: Option<usize>,
    /// Cover every board with up to this many seeds, as N says it.
    #[arg(long = "max-seeds", value_name = "N", conflicts_with = "max_seeds")]
    max_seeds_flag: Option<u32>,
    #[command(flatten)]
    rules: RuleArgs,
    /// Output file (default: data/db/kalah-hH-nN-RULES.kdb, or under $KALAH_DB_DIR).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Threads (default: every core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Store each value in the bits its level needs instead of a byte: the
    /// same values in 5 bits a board up to 31 seeds and 6 up to 63 (a bit
    /// more under clockwise sowing or unscored leftovers, whose values lack
    /// the seeds' parity), about 62% of the file and of the memory a search
    /// that loads it takes (about 72% with the extra bit). `--bits 5`.
    #[arg(long, conflicts_with = "bits")]
    packed: bool,
    /// Bits a board: 8 (one byte, the default), 5 (`--packed`: exact, 6 a
    /// board above 31 seeds), or 4 or 3: a window of the 14 or 6 values
    /// most boards of each level and mover's seed count take, and for the
    /// others a proven bound (below or above the window) that a search
    /// expands. 34 seeds of six houses take 13.6 GiB at 3 bits (26.4 at 5):
    /// what a search over them would hold in memory. A 3- or 4-bit file is
    /// written from the exact file, built first beside it (FILE.exact,
    /// resumable, removed at the end).
    #[arg(long, value_name = "BITS", value_parser = ["3", "4", "5", "8"])]
    bits: Option<String>,
    /// The most memory the build may take, as `20GiB` or `512MiB`
    /// (default: what the system has available). Where every level does
    /// not fit at once, the build holds one level a byte a board and reads
    /// the levels below back from its file, as many at a time as fit:
    /// counter-clockwise sowing only. Refused up front if even that does
    /// not fit, saying what it needs.
    #[arg(long, value_name = "SIZE")]
    memory: Option<bytesize::ByteSize>,
    /// Start from the levels of FILE, a complete database of the same
    /// board and rules with fewer seeds, stored the way this build's exact
    /// file is (`--packed`, or a window's exact file: packed): they are
    /// copied and checked, and only the levels above them are built.
    /// Ignored when the build has a partial file to resume already.
    #[arg(long, value_name = "FILE")]
    from: Option<PathBuf>,
    /// Print one JSON object on stdout when done.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub struct RepackArgs {
    /// The database file.
    file: PathBuf,
    /// Values packed in the bits each level needs (`--bits 5`); without it
    /// (or `--bits`) the file is written one byte a board (a packed file
    /// unpacked).
    #[arg(long, conflicts_with = "bits")]
    packed: bool,
    /// Bits a board, as `db build --bits` says: 8, 5, or a window of 4 or
    /// 3 (from an exact file only).
    #[arg(long, value_name = "BITS", value_parser = ["3", "4", "5", "8"])]
    bits: Option<String>,
    /// Where to write (default: in place of FILE, or of the file it links
    /// to, which stays as it was until the new file is complete and checked).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Threads (default: every core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Print one JSON object on stdout when done.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub struct FileArgs {
    /// The database file.
    file: PathBuf,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The database file (with --manifest: checked against its row).
    #[arg(required_unless_present = "manifest")]
    file: Option<PathBuf>,
    /// Check the databases a manifest lists (as written by `kalah strong
    /// --manifest`): every one present in the directory (files not built
    /// there are listed as absent, not failures), or with FILE that one.
    #[arg(long, value_name = "CSV")]
    manifest: Option<PathBuf>,
    /// Where the manifest's files are (default: the database folder; `kalah db list` says which).
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Also check every board's value against its moves' (the retrograde
    /// equations): finds a value forged within range with its checksums
    /// repaired. Slower: every board is unranked and each move probed.
    #[arg(long, conflicts_with = "manifest")]
    deep: bool,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub struct ProbeArgs {
    /// The database file.
    file: PathBuf,
    /// The position (ring form or side form).
    #[arg(long, value_name = "P")]
    position: String,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub struct PackArgs {
    /// The database file.
    file: PathBuf,
    /// The archive (default: FILE.zst, next to FILE).
    #[arg(short, long, value_name = "ARCHIVE")]
    output: Option<PathBuf>,
    /// zstd compression level, 1 to 19.
    #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(i32).range(1..=19))]
    level: i32,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub struct UnpackArgs {
    /// The archive.
    archive: PathBuf,
    /// The database file to write (default: the archive's name without .zst).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub struct ListArgs {
    /// The directory (default: $KALAH_DB_DIR; else data/db inside this repository, else ~/.local/share/kalah/db; the first line says which).
    dir: Option<PathBuf>,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

pub fn run(command: DbCommand) -> anyhow::Result<()> {
    match command {
        DbCommand::Build(a) => build(a),
        DbCommand::Info(a) => info(a),
        DbCommand::Verify(a) => verify(a),
        DbCommand::Probe(a) => probe(a),
        DbCommand::Pack(a) => pack(a),
        DbCommand::Unpack(a) => unpack(a),
        DbCommand::Repack(a) => repack(a),
        DbCommand::List(a) => list(a),
    }
}

/// How a file stores its values, from `--bits` (else `--packed`).
fn chosen_encoding(bits: Option<&str>, packed: bool, rules: kalah_core::Rules) -> kalah_db::Encoding {
    match bits.and_then(|b| b.parse().ok()).and_then(|b| kalah_db::Encoding::of_bits(b, rules)) {
        Some(e) => e,
        None => kalah_db::Encoding::chosen(packed, rules),
    }
}

impl BuildArgs {
    /// How the file stores its values (`--bits`, `--packed`).
    pub(crate) fn encoding(&self, rules: kalah_core::Rules) -> kalah_db::Encoding {
        chosen_encoding(self.bits.as_deref(), self.packed, rules)
    }

    /// Houses and the seeds covered, as `H N` or `--houses H --max-seeds N`
    /// (houses 6 when not given), or a refusal naming both ways.
    pub(crate) fn size(&self) -> anyhow::Result<(usize, u32)> {
        let houses = self.houses.or(self.houses_flag).unwrap_or(6);
        match self.max_seeds.or(self.max_seeds_flag) {
            Some(n) => Ok((houses, n)),
            None => Err(user("give the seeds to cover: `kalah db build H N` (e.g. `kalah db build 6 20`) or --houses H --max-seeds N")),
        }
    }
}

fn build(a: BuildArgs) -> anyhow::Result<()> {
    let rules = a.rules.rules();
    let (houses, max_seeds) = a.size()?;
    kalah_db::builder::check_size(houses, max_seeds).map_err(db_error)?;
    let threads = crate::common::threads(a.threads)?;
    let path = a.output.clone().unwrap_or_else(|| default_database_path(houses, max_seeds, rules));
    crate::common::check_output(&path)?;
    let encoding = a.encoding(rules);
    let limit = a.memory.map(|m| m.as_u64());
    kalah_db::check_resources_within(&path, houses, max_seeds, rules, encoding, limit).map_err(db_error)?;
    // Before the plan is said: a place that cannot be written, or a file
    // another build is writing, is refused in one line.
    kalah_db::safe::check_writable(&path).map_err(db_error)?;
    kalah_db::safe::check_free(&path).map_err(db_error)?;
    if let Some(from) = &a.from {
        let db = Database::open_for(from, houses, rules).map_err(db_error)?;
        let copied = kalah_db::build::start_from(&db, &path, max_seeds, encoding).map_err(db_error)?;
        if copied > 0 {
            eprintln!("note: levels 0 to {} copied from {}", copied - 1, from.display());
        }
    }
    let plan = kalah_db::build::plan(houses, max_seeds, rules, encoding, limit);
    let method = if plan.by_levels { format!(" (one level at a time, within {})", human_bytes(plan.limit)) } else { String::new() };
    eprintln!(
        "note: building {} boards of {} houses with up to {} seeds ({rules}) into {}: {} of memory{method}, {} of disk, {threads} threads",
        group(kalah_core::boards_up_to(houses, max_seeds)),
        houses,
        max_seeds,
        path.display(),
        human_bytes(plan.memory),
        human_bytes(plan.disk),
    );
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
    let start = Instant::now();
    let bars = crate::observe::Bars::new(houses, max_seeds);
    let report = pool.install(|| kalah_db::build_file_within(&path, houses, rules, max_seeds, encoding, limit, &bars)).map_err(db_error)?;
    let seconds = start.elapsed().as_secs_f64();
    if a.json {
        print_json(&json!({
            "path": report.path.display().to_string(),
            "houses": houses,
            "max_seeds": max_seeds,
            "rules": rules_json(rules),
            "boards": kalah_core::boards_up_to(houses, max_seeds),
            "encoding": encoding.name(),
            "bits": encoding.bits(max_seeds),
            "by_levels": plan.by_levels,
            "bytes": report.bytes,
            "resumed_levels": report.resumed_levels,
            "seconds": seconds,
            "level_seconds": report.level_seconds.iter().map(|(n, s)| json!({"level": n, "seconds": s})).collect::<Vec<_>>(),
        }));
    } else {
        println!(
            "Built {} ({}, {} boards) in {:.1} s{}",
            report.path.display(),
            human_bytes(report.bytes),
            group(kalah_core::boards_up_to(houses, max_seeds)),
            seconds,
            if report.resumed_levels > 0 { format!(" (levels 0 to {} were already built)", report.resumed_levels - 1) } else { String::new() }
        );
    }
    Ok(())
}

/// How a file of up to `max_seeds` seeds stores its values, in words.
fn encoding_words(e: kalah_db::Encoding, max_seeds: u32) -> String {
    let bits = e.bits(max_seeds);
    match e {
        kalah_db::Encoding::Byte => "one signed byte per board".to_string(),
        kalah_db::Encoding::Share => format!("packed: the mover's share in the bits of its level ({bits} a board at {max_seeds} seeds)"),
        kalah_db::Encoding::Offset => format!("packed: the value plus the seeds in the bits of its level ({bits} a board at {max_seeds} seeds)"),
        kalah_db::Encoding::Window(w) => {
            format!("a window of {} values a level and mover's seeds in {w} bits a board, bounds outside it", (1 << w) - 2)
        }
    }
}

fn repack(a: RepackArgs) -> anyhow::Result<()> {
    let threads = crate::common::threads(a.threads)?;
    let db = open(&a.file)?;
    // In place: of the file itself, not of a link to it.
    let to = a.output.clone().unwrap_or_else(|| std::fs::canonicalize(&a.file).unwrap_or_else(|_| a.file.clone()));
    if a.output.is_some() {
        crate::common::check_output(&to)?;
    }
    let encoding = chosen_encoding(a.bits.as_deref(), a.packed, db.header().rules);
    kalah_db::writer::check_reencode(&db, encoding).map_err(db_error)?;
    let boards = db.indexer().len();
    eprintln!(
        "note: writing {} ({} boards) again into {}, {}",
        a.file.display(),
        group(boards),
        to.display(),
        encoding_words(encoding, db.header().max_seeds)
    );
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
    let start = Instant::now();
    let bar = ProgressBar::new(boards);
    bar.set_style(
        ProgressStyle::with_template("repacking {bar:30} {human_pos}/{human_len} boards, {elapsed_precise}, about {eta} left")
            .expect("valid template"),
    );
    let report = pool.install(|| kalah_db::writer::reencode(&db, &to, encoding, &|n| bar.inc(n))).map_err(db_error)?;
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    if a.json {
        print_json(&json!({
            "path": report.path.display().to_string(),
            "from": a.file.display().to_string(),
            "encoding": encoding.name(),
            "bytes": report.bytes,
            "from_bytes": db.file_bytes(),
            "seconds": seconds,
        }));
    } else {
        println!("Wrote {} ({}, was {}) in {:.1} s", report.path.display(), human_bytes(report.bytes), human_bytes(db.file_bytes()), seconds);
    }
    Ok(())
}

fn open(path: &Path) -> anyhow::Result<Database> {
    Database::open(path).map_err(db_error)
}

fn info(a: FileArgs) -> anyhow::Result<()> {
    let db = open(&a.file)?;
    let h = db.header();
    if a.json {
        print_json(&json!({
            "path": a.file.display().to_string(),
            "format_version": kalah_db::format::VERSION,
            "houses": h.houses,
            "max_seeds": h.max_seeds,
            "rules": rules_json(h.rules),
            "boards": db.indexer().len(),
            "encoding": h.encoding.name(),
            "bytes": db.file_bytes(),
            "levels": h.levels.iter().enumerate().map(|(n, e)| json!({
                "seeds": n, "boards": e.boards, "offset": e.offset, "checksum": format!("{:016x}", e.checksum)
            })).collect::<Vec<_>>(),
        }));
    } else {
        println!("{}", a.file.display());
        println!("  format version {}, {}", kalah_db::format::VERSION, encoding_words(h.encoding, h.max_seeds));
        println!("  houses a side  {}", h.houses);
        println!("  seeds          0 to {}", h.max_seeds);
        println!("  rules          {}", h.rules);
        println!("  boards         {}", group(db.indexer().len()));
        println!("  file size      {} ({})", group(db.file_bytes()), human_bytes(db.file_bytes()));
        println!("  levels         seeds: boards");
        for (n, e) in h.levels.iter().enumerate() {
            println!("    {n:>3}: {:>15}  checksum {:016x}", group(e.boards), e.checksum);
        }
    }
    Ok(())
}

fn verify(a: VerifyArgs) -> anyhow::Result<()> {
    if let (Some(_), Some(file), Some(dir)) = (&a.manifest, &a.file, &a.dir) {
        return Err(user(format!(
            "--dir {} and {}: --dir says where a manifest's files are; give it or one file, not both",
            dir.display(),
            file.display()
        )));
    }
    if let Some(manifest) = &a.manifest {
        return verify_manifest(manifest, a.dir.clone().unwrap_or_else(crate::common::database_dir), a.file.as_deref(), a.json);
    }
    if let Some(dir) = &a.dir {
        // Said here rather than by clap's `requires`, with what --dir is for.
        return Err(user(format!("--dir {}: the directory of a manifest's files; it needs --manifest", dir.display())));
    }
    let file = a.file.clone().expect("clap requires a file without --manifest");
    let db = open(&file)?;
    let bar = ProgressBar::new(db.indexer().len());
    bar.set_style(
        ProgressStyle::with_template("verifying {bar:30} {human_pos}/{human_len} boards [{elapsed_precise}, {eta} left]").expect("valid template"),
    );
    let start = Instant::now();
    let result = db.verify(&|bytes| bar.inc(bytes));
    bar.finish_and_clear();
    result.map_err(db_error)?;
    if a.deep {
        let boards = ProgressBar::new(db.indexer().len());
        boards.set_style(
            ProgressStyle::with_template(
                "checking every board's value against its moves {bar:30} {human_pos}/{human_len} boards [{elapsed_precise}, {eta} left]",
            )
            .expect("valid template"),
        );
        let result = kalah::databases::verify_equations(&db, &|n| boards.inc(n));
        boards.finish_and_clear();
        result?;
    }
    let seconds = start.elapsed().as_secs_f64();
    if a.json {
        print_json(
            &json!({"path": file.display().to_string(), "ok": true, "bytes": db.file_bytes(), "deep": a.deep, "boards": db.indexer().len(), "seconds": seconds}),
        );
    } else if a.deep {
        println!(
            "{}: every checksum holds, and every board's value its moves' ({} boards checked in {seconds:.2} s)",
            file.display(),
            db.indexer().len()
        );
    } else {
        println!("{}: every checksum holds ({} checked in {seconds:.2} s)", file.display(), human_bytes(db.file_bytes()));
    }
    Ok(())
}

/// Checks the databases of a manifest present in `dir` (or only `file`):
/// [`kalah::databases::strong::check_manifest`]; none present at all is refused.
fn verify_manifest(manifest: &Path, dir: PathBuf, file: Option<&Path>, json: bool) -> anyhow::Result<()> {
    let check = kalah::databases::strong::check_manifest(manifest, &dir, file)?;
    if json {
        print_json(&check);
    } else {
        for c in &check.checked {
            println!("ok       {c}");
        }
        for p in &check.problems {
            println!("FAILED   {p}");
        }
        if !check.absent.is_empty() {
            println!(
                "absent   {} of the manifest's files are not in {} (not built there; `kalah strong` or tools/strong.sh builds them)",
                check.absent.len(),
                dir.display()
            );
        }
    }
    let (problems, checked) = (check.problems.len(), check.checked.len());
    if problems > 0 {
        Err(user(format!("{problems} of {} databases present in {} do not match {}", problems + checked, dir.display(), manifest.display())))
    } else if checked == 0 {
        Err(user(format!("none of the {} files {} lists is in {}: nothing to check", check.absent.len(), manifest.display(), dir.display())))
    } else {
        Ok(())
    }
}

fn probe(a: ProbeArgs) -> anyhow::Result<()> {
    let db = open(&a.file)?;
    let position = parse_position(&a.position)?;
    let report = kalah::probe(&db, &position)?;
    if a.json {
        print_json(&report);
    } else {
        crate::analysis::print_human("Probe", &report);
    }
    Ok(())
}

fn pack(a: PackArgs) -> anyhow::Result<()> {
    let out = a.output.clone().unwrap_or_else(|| {
        let mut name = a.file.as_os_str().to_os_string();
        name.push(".zst");
        PathBuf::from(name)
    });
    crate::common::check_output(&out)?;
    let db = open(&a.file)?;
    let h = db.header();
    let value_bytes = h.levels.iter().enumerate().map(|(n, e)| h.value_bytes(n as u32, e)).sum();
    let bar = ProgressBar::new(value_bytes);
    bar.set_style(
        ProgressStyle::with_template("packing {bar:30} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec}").expect("valid template"),
    );
    drop(db);
    let start = Instant::now();
    let report = kalah_db::pack::pack(&a.file, &out, a.level, &|n| bar.inc(n)).map_err(db_error)?;
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    if a.json {
        print_json(&json!({
            "database": a.file.display().to_string(), "archive": out.display().to_string(),
            "database_bytes": report.database_bytes, "archive_bytes": report.archive_bytes, "seconds": seconds,
        }));
    } else {
        println!(
            "Packed {} ({}) into {} ({}, {:.1}%) in {seconds:.1} s",
            a.file.display(),
            human_bytes(report.database_bytes),
            out.display(),
            human_bytes(report.archive_bytes),
            100.0 * report.archive_bytes as f64 / report.database_bytes as f64
        );
    }
    Ok(())
}

fn unpack(a: UnpackArgs) -> anyhow::Result<()> {
    let out = match &a.output {
        Some(p) => p.clone(),
        None => {
            let name = a.archive.to_string_lossy();
            match name.strip_suffix(".zst") {
                Some(stem) => PathBuf::from(stem),
                None => return Err(user("the archive's name does not end in .zst: give the output file with -o")),
            }
        }
    };
    crate::common::check_output(&out)?;
    let bar = ProgressBar::new_spinner();
    let start = Instant::now();
    let report = kalah_db::pack::unpack(&a.archive, &out, &|n| bar.inc(n)).map_err(db_error)?;
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    if a.json {
        print_json(&json!({
            "archive": a.archive.display().to_string(), "database": out.display().to_string(),
            "database_bytes": report.database_bytes, "archive_bytes": report.archive_bytes, "seconds": seconds,
        }));
    } else {
        println!(
            "Unpacked {} into {} ({}), every checksum verified, in {seconds:.1} s",
            a.archive.display(),
            out.display(),
            human_bytes(report.database_bytes)
        );
    }
    Ok(())
}

fn list(a: ListArgs) -> anyhow::Result<()> {
    let listing = kalah::Databases::listing(a.dir.as_deref())?;
    if a.json {
        print_json(&listing);
        return Ok(());
    }
    let dir = &listing.dir;
    let whence = listing.why.map_or(String::new(), |w| format!(" ({w})"));
    if !listing.exists {
        println!("{}{whence}: no databases yet; `kalah db build` makes the directory", dir.display());
        return Ok(());
    }
    if listing.is_empty() {
        println!("{}{whence}: no databases (build one with `kalah db build`)", dir.display());
        return Ok(());
    }
    let name = |path: &Path| path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    println!("{}{whence}:", dir.display());
    if !listing.databases.is_empty() {
        println!("  houses  seeds        size  file (its name gives the rules)");
    }
    for d in &listing.databases {
        let packed = if d.encoding.is_packed() { " (packed)" } else { "" };
        println!("  {:>6}  {:>5}  {:>10}  {}{packed}", d.houses, d.max_seeds, human_bytes(d.bytes), name(&d.path));
        if !d.default {
            println!("                             {}; not the default name, so only used with --db", d.rules);
        }
    }
    for p in &listing.partial {
        let state = if p.levels_done == p.levels {
            "every level written, not yet renamed into place".to_string()
        } else {
            format!("{} of {} levels done", p.levels_done, p.levels)
        };
        println!("  build under way or interrupted, {state} ({}): {}", human_bytes(p.bytes), name(&p.path));
    }
    for r in &listing.archives {
        println!(
            "  archive of h={} up to {} seeds, {} ({}; `kalah db unpack` restores it): {}",
            r.houses,
            r.max_seeds,
            r.rules,
            human_bytes(r.bytes),
            name(&r.path)
        );
    }
    for r in &listing.refused {
        println!("  refused: {}", r.error);
    }
    for m in &listing.memories {
        println!("  search memory of h={} ({}): {}", m.houses, human_bytes(m.bytes), m.path.display());
        println!("      {}; `solve --no-memory` passes over it, deleting it forgets", m.rules);
    }
    Ok(())
}
