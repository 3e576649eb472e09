//! `cargo run --release -p kalah --example query -- "3,3,3,3,0,3,3,3,3,0 S"`:
//! one position answered as `kalah query --json` answers it (standard
//! rules, the databases of `$KALAH_DB_DIR` or `data/db`).
use kalah::{Analyzer, Databases, Position, Request, Rules, Silent};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let text = std::env::args().nth(1).unwrap_or_else(|| "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S".into());
    let position: Position = text.parse()?;
    let analyzer = Analyzer::new(Databases::new(Databases::default_dir()));
    let report = analyzer.analyze(&Request::new(position, Rules::default()), &Silent)?;
    println!("{}", serde_json::to_string(&report)?);
    Ok(())
}
