//! Search strategies for samaritan.
//!
//! Each strategy implements [`samaritan_sim::Strategy`] and depends on
//! nothing but that API: it sees actors, their pending operations and the
//! enabled set, never a primitive's type.

mod dfs;
mod dpor;
mod hb;
mod icb;
mod pct;
mod pump;
mod random;
mod rng;
mod round_robin;

pub use dfs::Dfs;
pub use dpor::Dpor;
pub use icb::Icb;
pub use pct::Pct;
pub use random::Random;
pub use round_robin::RoundRobin;
pub use samaritan_sim::Replay;
