//! Search strategies for samaritan.
//!
//! Each strategy implements [`samaritan_sim::Strategy`] and depends on
//! nothing but that API: it sees actors, their pending operations and the
//! enabled set, never a primitive's type.

mod actors;
mod bpor;
mod cb_por;
mod dfs;
mod dpor;
mod hapset;
mod hb;
mod icb;
mod labels;
mod pct;
mod pool;
mod portfolio;
mod pump;
mod random;
mod rng;
mod round_robin;
mod shard;
mod signature;
mod sleep;
mod table;

pub use cb_por::CbPor;
pub use dfs::Dfs;
pub use dpor::Dpor;
pub use hapset::{Coverage, CoverageError, COVERAGE_VERSION};
pub use icb::Icb;
pub use pct::Pct;
pub use portfolio::{Portfolio, LATER_SHARE, RAMP};
pub use random::Random;
pub use round_robin::RoundRobin;
pub use samaritan_sim::Replay;
pub use shard::{shard_seed, Sharded};
