//! The ranges a [`Builder`]'s settings must lie in, for its `SAMARITAN_*`
//! defaults and its setters alike.
//!
//! An out-of-range value is an error that names the variable or the setter
//! (never a silent default, a panic, or an allocation the value controls),
//! except where rounding is what std does too: a stack smaller than
//! [`MIN_STACK_SIZE`] is rounded up, as std rounds a thread's stack up to
//! the platform's minimum, and a step bound above
//! [`samaritan_sim::MAX_STEPS`] counts as that bound.

use std::time::Duration;

use samaritan_strategies::Pct;

use crate::check::{Builder, Error};

/// The shortest watchdog: a busy machine keeps a runnable thread waiting
/// for tens of milliseconds, and a watchdog that short reports blocking
/// where there is none (at 0 it reported uncontrolled blocking of a correct
/// program).
pub(crate) const MIN_WATCHDOG: Duration = Duration::from_millis(100);

/// The smallest coroutine stack; smaller sizes are rounded up to it.
pub(crate) const MIN_STACK_SIZE: usize = 16 * 1024;

/// The largest coroutine stack: every simulated thread gets one, and up to
/// 64 idle ones are kept per exploring thread, so 1 GiB (512 times std's
/// default) already reserves 64 GiB of address space.
pub(crate) const MAX_STACK_SIZE: usize = 1 << 30;

/// What the settings should be, as error messages say it (the tests check
/// that these name the constants above).
pub(crate) const PCT_DEPTH: &str = "a depth from 1 to 64";
pub(crate) const STEPS: &str = "a number of steps, at least 1";
pub(crate) const EXECUTIONS: &str = "a number of executions, at least 1";
pub(crate) const SECONDS: &str = "a number of seconds greater than 0, or none";
pub(crate) const MILLISECONDS: &str = "a number of milliseconds, at least 100";
pub(crate) const BYTES: &str = "a number of bytes, at most 1073741824";
pub(crate) const SHARD: &str = "i/n with 1 <= i <= n <= 65536, as in 1/4";
pub(crate) const WORKERS: &str = "a number of workers from 1 to 256";

/// Returns `seconds` as a time budget, if it is one: finite, and positive
/// even once rounded to nanoseconds.
pub(crate) fn seconds(seconds: f64) -> Option<Duration> {
    Duration::try_from_secs_f64(seconds).ok().filter(|t| !t.is_zero())
}

/// Checks that every setting of `builder` is in range.
pub(crate) fn check(builder: &Builder) -> Result<(), Error> {
    let invalid = |setting: &'static str, value: String, expected: &'static str| {
        Err(Error::InvalidSetting { setting, value, expected })
    };
    if !(1..=Pct::MAX_DEPTH).contains(&builder.pct_depth) {
        return invalid("pct_depth", builder.pct_depth.to_string(), PCT_DEPTH);
    }
    if builder.max_steps == 0 {
        return invalid("max_steps", "0".to_string(), STEPS);
    }
    if builder.max_executions == Some(0) {
        return invalid("max_executions", "0".to_string(), EXECUTIONS);
    }
    if builder.max_time.is_some_and(|t| t.is_zero()) {
        return invalid("max_time", format!("{:?}", Duration::ZERO), "a time greater than 0");
    }
    if builder.watchdog < MIN_WATCHDOG {
        return invalid("watchdog", format!("{:?}", builder.watchdog), "at least 100ms");
    }
    if builder.stack_size > MAX_STACK_SIZE {
        return invalid("stack_size", builder.stack_size.to_string(), BYTES);
    }
    if builder.loom_bound && builder.strategy != crate::SearchStrategy::Bpor {
        return invalid("loom_bound", "true".to_string(), "false unless the strategy is bpor");
    }
    if !(1..=crate::split::MAX_WORKERS).contains(&builder.workers) {
        return invalid("workers", builder.workers.to_string(), WORKERS);
    }
    if u64::from(builder.shard.count()) * u64::from(builder.workers) > u64::from(samaritan_sim::MAX_SHARDS) {
        return invalid("workers", builder.workers.to_string(), "at most 65536 shards times workers");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Builds a builder from the given environment.
    fn from(vars: &[(&str, &str)]) -> Builder {
        let map: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Builder::with_env(&move |var| map.get(var).cloned())
    }

    #[test]
    fn out_of_range_environment_values_are_errors_naming_the_variable() {
        let cases = [
            ("SAMARITAN_WATCHDOG_MS", "0", "a number of milliseconds, at least 100"),
            ("SAMARITAN_MAX_EXECUTIONS", "0", "a number of executions, at least 1"),
            ("SAMARITAN_MAX_STEPS", "0", "a number of steps, at least 1"),
            ("SAMARITAN_MAX_TIME", "0", "a number of seconds greater than 0, or none"),
            ("SAMARITAN_MAX_TIME", "-1", "a number of seconds greater than 0, or none"),
            ("SAMARITAN_MAX_TIME", "NaN", "a number of seconds greater than 0, or none"),
            ("SAMARITAN_MAX_TIME", "inf", "a number of seconds greater than 0, or none"),
            ("SAMARITAN_MAX_TIME", "1e300", "a number of seconds greater than 0, or none"),
            ("SAMARITAN_MAX_TIME", "1e-10", "a number of seconds greater than 0, or none"),
            ("SAMARITAN_STACK_SIZE", "4611686018427387904", "a number of bytes, at most 1073741824"),
            ("SAMARITAN_PCT_DEPTH", "4294967295", "a depth from 1 to 64"),
        ];
        for (var, value, expected) in cases {
            let err = from(&[(var, value)]).explore(|| {}).unwrap_err();
            assert_eq!(err.to_string(), format!("{var}={value:?} is invalid: expected {expected}"));
        }
    }

    #[test]
    fn out_of_range_settings_are_errors_naming_the_setter() {
        let cases = [
            (from(&[]).pct_depth(0), "Builder::pct_depth(0) is invalid: expected a depth from 1 to 64"),
            (from(&[]).pct_depth(65), "Builder::pct_depth(65) is invalid: expected a depth from 1 to 64"),
            // r05: this depth drew 4e9 change points per execution.
            (from(&[]).pct_depth(u32::MAX), "Builder::pct_depth(4294967295) is invalid: expected a depth from 1 to 64"),
            (
                from(&[]).max_executions(0),
                "Builder::max_executions(0) is invalid: expected a number of executions, at least 1",
            ),
            (from(&[]).max_steps(0), "Builder::max_steps(0) is invalid: expected a number of steps, at least 1"),
            (from(&[]).max_time(Duration::ZERO), "Builder::max_time(0ns) is invalid: expected a time greater than 0"),
            (from(&[]).watchdog(Duration::ZERO), "Builder::watchdog(0ns) is invalid: expected at least 100ms"),
            (
                from(&[]).stack_size(1 << 40),
                "Builder::stack_size(1099511627776) is invalid: expected a number of bytes, at most 1073741824",
            ),
        ];
        for (builder, message) in cases {
            assert_eq!(builder.explore(|| {}).unwrap_err().to_string(), message);
            let token = "s2_A2ljYgABJ2Z3pAIAAgIB8hY";
            assert_eq!(builder.replay(token, || {}).unwrap_err().to_string(), message);
        }
    }

    #[test]
    fn the_messages_name_the_limits() {
        assert_eq!(PCT_DEPTH, format!("a depth from 1 to {}", Pct::MAX_DEPTH));
        assert_eq!(BYTES, format!("a number of bytes, at most {MAX_STACK_SIZE}"));
        assert_eq!(MILLISECONDS, format!("a number of milliseconds, at least {}", MIN_WATCHDOG.as_millis()));
        assert_eq!(format!("at least {MIN_WATCHDOG:?}"), "at least 100ms");
    }

    #[test]
    fn a_time_budget_is_finite_and_positive() {
        assert_eq!(seconds(1.5), Some(Duration::from_millis(1500)));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e300, 1e-10] {
            assert_eq!(seconds(bad), None, "{bad}");
        }
    }
}
