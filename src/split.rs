//! Splitting one search: shards (`SAMARITAN_SHARD`) and in-process workers
//! (`SAMARITAN_WORKERS`), and the JSON report file (`SAMARITAN_REPORT`).
//!
//! Shard `i/n` with `w` workers: for `dfs` and `dpor` the workers share
//! the shard's space by work stealing (`Dfs::team`, `Dpor::team`); for the
//! other strategies they
//! explore sub-shards `(i-1)*w+1 ..= i*w` of `n*w`, so that shards with
//! workers are still an exact partition. Only
//! the strategies whose space `samaritan_strategies` can cut are split:
//! `dfs`, `dpor`, `cb-por` (by schedule prefix), `icb` (by second
//! preemption), `random` and `pct` (by seed, with the execution budget
//! shared out), and the portfolio (its systematic part by prefix, its
//! hunters by seed).

use std::io::Write as _;
use std::path::Path;

use samaritan_sim::{Config, Shard, Strategy};
use samaritan_strategies::{shard_seed, CbPor, Dfs, Dpor, Icb, Pct, Portfolio, Random, Sharded};

use crate::check::{Builder, Error, SearchStrategy};

/// The strategies whose space can be split, as the error says them.
pub(crate) const SPLITTABLE: &str = "portfolio, icb, dfs, dpor, cb-por, bpor, random or pct";

/// The most workers a search runs on.
pub(crate) const MAX_WORKERS: u32 = 256;

/// The strategies of a split search's workers, in order.
pub(crate) type Parts = Vec<Box<dyn Strategy + Send>>;

/// The workers of a team, as parts.
fn boxed<S: Strategy + Send + 'static>(team: impl IntoIterator<Item = S>) -> Parts {
    team.into_iter().map(|w| Box::new(w) as Box<dyn Strategy + Send>).collect()
}

/// One strategy per worker of `builder`'s shard, and the config they share
/// (its execution budget this shard's share); `None` when the search is
/// not split.
pub(crate) fn parts(builder: &Builder, mut config: Config) -> Result<Option<(Config, Parts)>, Error> {
    let (shard, workers) = (builder.shard, builder.workers);
    if shard.is_whole() && workers == 1 {
        return Ok(None);
    }
    if !matches!(
        builder.strategy,
        SearchStrategy::Portfolio
            | SearchStrategy::Dfs
            | SearchStrategy::Icb
            | SearchStrategy::Dpor
            | SearchStrategy::CbPor
            | SearchStrategy::Bpor
            | SearchStrategy::Random
            | SearchStrategy::Pct
    ) {
        return Err(Error::Unsplittable { strategy: builder.strategy.name() });
    }
    config.max_executions = config.max_executions.map(|m| shard.share(m).max(1));
    // Searches whose workers share the shard's space by work stealing.
    let n = workers as usize;
    let (bound, seed, depth) = (builder.preemption_bound, builder.seed, builder.pct_depth);
    let loom = builder.loom_bound;
    let team: Option<Parts> = match builder.strategy {
        _ if workers == 1 => None,
        SearchStrategy::Dfs => Some(boxed(Dfs::team(n).into_iter().map(|w| Sharded::new(w, shard)))),
        SearchStrategy::Dpor => Some(boxed(Dpor::team(n, shard))),
        SearchStrategy::CbPor => Some(boxed(CbPor::team(n, bound, shard))),
        SearchStrategy::Bpor => Some(boxed(Dpor::team(n, shard).into_iter().map(|w| bpor(w, bound, loom)))),
        SearchStrategy::Portfolio => Some(boxed(Portfolio::team(n, bound, seed, depth, shard))),
        _ => None,
    };
    if let Some(parts) = team {
        return Ok(Some((config, parts)));
    }
    let count = shard.count() * workers;
    let parts = (1..=workers)
        .map(|j| {
            let sub = Shard::new((shard.index() - 1) * workers + j, count).expect("checked by limits");
            let part: Box<dyn Strategy + Send> = match builder.strategy {
                SearchStrategy::Dfs => Box::new(Sharded::new(Dfs::new(), sub)),
                SearchStrategy::Icb => Box::new(Icb::sharded(bound, sub)),
                SearchStrategy::Dpor => Box::new(Dpor::sharded(sub)),
                SearchStrategy::CbPor => Box::new(CbPor::sharded(bound, sub)),
                SearchStrategy::Bpor => Box::new(bpor(Dpor::sharded(sub), bound, loom)),
                SearchStrategy::Portfolio => Box::new(Portfolio::sharded(bound, seed, depth, sub)),
                SearchStrategy::Random => Box::new(Random::new(shard_seed(seed, sub))),
                _ => Box::new(Pct::new(shard_seed(seed, sub), depth)),
            };
            part
        })
        .collect();
    Ok(Some((config, parts)))
}

/// `search` as bounded partial-order reduction at `bound`, counted as
/// loom counts it when `loom` ([`Builder::loom_bound`]).
pub(crate) fn bpor(search: Dpor, bound: u32, loom: bool) -> Dpor {
    let search = search.within(bound);
    if loom {
        search.counting_as_loom()
    } else {
        search
    }
}

/// Appends `report`'s record to the report file at `path` (one JSON
/// object per line; the file is created if need be).
pub(crate) fn write_record(path: &Path, report: &samaritan_sim::Report) -> Result<(), Error> {
    let line = samaritan_artifacts::json::Record::of(report).to_line() + "\n";
    let error = |e: std::io::Error| Error::ReportFile { path: path.to_path_buf(), message: e.to_string() };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(error)?;
    }
    // One write of the whole line: checks of one binary append side by side.
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(error)?;
    file.write_all(line.as_bytes()).map_err(error)
}
