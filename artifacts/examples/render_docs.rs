//! Renders the pictures in `docs/`: the HTML report of the lost-update
//! example's failure and a coverage chart of four strategies on one small
//! program.
//!
//! Run with `cargo run -p samaritan-artifacts --example render_docs --features sim [OUT_DIR]`
//! (the default output directory is the workspace's `docs/`).

use std::path::{Path, PathBuf};

use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::Arc;
use samaritan::{thread, Builder, SearchStrategy};

#[path = "../../examples/lost_update.rs"]
#[allow(dead_code)]
mod lost_update;

/// Three threads step through four updates of a shared register each and
/// name the state after every step: each thread's progress and the
/// register's value. The state space is small enough to fill.
fn three_counters() {
    let x = Arc::new(AtomicUsize::new(0));
    let progress = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0)]);
    let handles: Vec<_> = (0..3)
        .map(|me| {
            let (x, progress) = (x.clone(), progress.clone());
            thread::spawn(move || {
                for step in 1..=4 {
                    let seen = x.load(Ordering::SeqCst);
                    x.store((seen * 3 + me + step) % 7, Ordering::SeqCst);
                    progress[me].store(step, Ordering::SeqCst);
                    let state = progress.iter().fold(x.load(Ordering::SeqCst) as u64, |h, p| {
                        h.wrapping_mul(31).wrapping_add(p.load(Ordering::SeqCst) as u64)
                    });
                    samaritan::coverage::state(state);
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
}

fn main() -> std::io::Result<()> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the crate sits in the workspace");
    let out = std::env::args().nth(1).map_or_else(|| workspace.join("docs"), PathBuf::from);
    std::fs::create_dir_all(&out)?;

    let report = Builder::new().explore(lost_update::two_increments).expect("valid settings");
    assert!(report.is_failure(), "the lost update is found");
    std::fs::write(out.join("report.html"), samaritan_artifacts::html::report(&report))?;

    let budget = 3000;
    let runs = [
        ("icb", Builder::new().strategy(SearchStrategy::Icb)),
        ("dfs", Builder::new().strategy(SearchStrategy::Dfs)),
        ("random", Builder::new().strategy(SearchStrategy::Random).seed(7)),
        ("pct", Builder::new().strategy(SearchStrategy::Pct).seed(7)),
    ];
    let mut series = Vec::new();
    for (name, builder) in runs {
        let report = builder.max_executions(budget).explore(three_counters).expect("valid settings");
        println!("{name}: {} executions, {:?} states", report.executions, report.states);
        series.push((name, report.coverage));
    }
    let series: Vec<(&str, &[(u64, u64)])> = series.iter().map(|(n, c)| (*n, c.as_slice())).collect();
    std::fs::write(out.join("coverage.svg"), samaritan_artifacts::svg::coverage_chart(&series))?;
    println!("wrote {}/report.html and {}/coverage.svg", out.display(), out.display());
    Ok(())
}
