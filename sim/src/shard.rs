//! Shards: which part of a search space one run explores.
//!
//! A shard `i/n` (1-based, as `cargo nextest --partition count:i/n` and CI
//! matrices count) is the `i`-th of `n` disjoint parts; the strategies say
//! how a space is cut (`samaritan_strategies::Sharded`: schedule prefixes
//! for systematic searches, seeds for randomized ones). In-process workers
//! are shards of one search run side by side ([`crate::explore_parallel`]).
//!
//! Invariant: `1 <= index <= count`; [`Shard::parse`] and [`Shard::new`]
//! refuse anything else.

use std::fmt;

/// The `index`-th of `count` parts of a search space.
///
/// ```
/// use samaritan_sim::Shard;
///
/// let shard = Shard::parse("2/3").unwrap();
/// assert_eq!((shard.index(), shard.count()), (2, 3));
/// assert_eq!(shard.to_string(), "2/3");
/// // Ten executions split three ways: 4, 3 and 3.
/// assert_eq!(Shard::parse("1/3").unwrap().share(10), 4);
/// assert_eq!(shard.share(10), 3);
/// assert_eq!(Shard::parse("0/3").unwrap_err().to_string(), "shard \"0/3\": the index counts from 1 to the number of shards");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    index: u32,
    count: u32,
}

/// The most shards a space is cut into.
pub const MAX_SHARDS: u32 = 1 << 16;

/// Why a shard could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardError {
    text: String,
    why: &'static str,
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "shard {:?}: {}", self.text, self.why)
    }
}

impl std::error::Error for ShardError {}

impl Shard {
    /// The whole space: shard 1 of 1.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// The `index`-th of `count` parts, if `1 <= index <= count <=`
    /// [`MAX_SHARDS`].
    pub fn new(index: u32, count: u32) -> Option<Shard> {
        (1..=MAX_SHARDS).contains(&count).then_some(())?;
        (1..=count).contains(&index).then_some(Shard { index, count })
    }

    /// Reads `i/n`, as `SAMARITAN_SHARD` spells it.
    pub fn parse(text: &str) -> Result<Shard, ShardError> {
        let error = |why| ShardError { text: text.to_string(), why };
        let (i, n) = text.trim().split_once('/').ok_or_else(|| error("expected i/n, as in 1/4"))?;
        let number = |s: &str| s.trim().parse::<u32>().map_err(|_| error("expected i/n, as in 1/4"));
        let (index, count) = (number(i)?, number(n)?);
        if !(1..=MAX_SHARDS).contains(&count) {
            return Err(error("the number of shards is from 1 to 65536"));
        }
        Shard::new(index, count).ok_or_else(|| error("the index counts from 1 to the number of shards"))
    }

    /// Which part this is, from 1.
    pub fn index(self) -> u32 {
        self.index
    }

    /// How many parts there are.
    pub fn count(self) -> u32 {
        self.count
    }

    /// Whether this is the whole space.
    pub fn is_whole(self) -> bool {
        self.count == 1
    }

    /// Whether this shard owns a part of the space `key` names (a hash):
    /// each key has exactly one owner among the `count` shards.
    pub fn owns(self, key: u64) -> bool {
        key % u64::from(self.count) == u64::from(self.index - 1)
    }

    /// This shard's share of `total` (executions of a budget): the shares
    /// of the `count` shards add up to `total`, and differ by at most one.
    pub fn share(self, total: u64) -> u64 {
        let n = u64::from(self.count);
        total / n + u64::from(u64::from(self.index - 1) < total % n)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_key_has_one_owner_and_shares_add_up() {
        for count in 1..=5 {
            let shards: Vec<Shard> = (1..=count).map(|i| Shard::new(i, count).unwrap()).collect();
            for key in 0..100u64 {
                assert_eq!(shards.iter().filter(|s| s.owns(key)).count(), 1);
            }
            for total in [0, 1, 7, 1000] {
                assert_eq!(shards.iter().map(|s| s.share(total)).sum::<u64>(), total);
            }
        }
    }

    #[test]
    fn bad_shards_are_errors() {
        for (text, why) in [
            ("3", "expected i/n, as in 1/4"),
            ("a/2", "expected i/n, as in 1/4"),
            ("-1/2", "expected i/n, as in 1/4"),
            ("3/2", "the index counts from 1 to the number of shards"),
            ("1/0", "the number of shards is from 1 to 65536"),
            ("1/70000", "the number of shards is from 1 to 65536"),
        ] {
            assert_eq!(Shard::parse(text).unwrap_err().to_string(), format!("shard {text:?}: {why}"));
        }
        assert_eq!(Shard::parse(" 4/4 ").unwrap(), Shard::new(4, 4).unwrap());
    }
}
