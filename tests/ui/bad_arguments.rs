// Each test has one bad argument; each is a compile error at its span.

const SEED: u64 = 7;

#[samaritan::test(stratgy = "dfs")]
fn unknown_argument() {}

#[samaritan::test(seed = 1, seed = 2)]
fn given_twice() {}

#[samaritan::test(strategy)]
fn no_value() {}

#[samaritan::test(strategy = "bfs")]
fn unknown_strategy() {}

#[samaritan::test(strategy = dfs)]
fn strategy_not_a_string() {}

#[samaritan::test(preemptions = "3")]
fn preemptions_not_an_integer() {}

#[samaritan::test(preemptions = 4294967296)]
fn preemptions_too_large() {}

#[samaritan::test(preemptions = 3u8)]
fn suffixed_integer() {}

#[samaritan::test(seed = SEED)]
fn not_a_literal() {}

#[samaritan::test(seed = -1)]
fn negative() {}

#[samaritan::test(fairness = 1)]
fn fairness_not_a_bool() {}

#[samaritan::test(pct_depth = 0)]
fn pct_depth_zero() {}

#[samaritan::test(pct_depth = 65)]
fn pct_depth_too_deep() {}

#[samaritan::test(max_steps = 0)]
fn no_steps() {}

#[samaritan::test(max_executions = 0)]
fn no_executions() {}

#[samaritan::test(max_time = 0)]
fn no_time() {}

#[samaritan::test(max_time = "soon")]
fn time_not_a_number() {}

#[samaritan::test(stack_size = 1073741825)]
fn stack_too_large() {}

#[samaritan::test(watchdog_ms = 99)]
fn watchdog_too_short() {}

#[samaritan::test(hapset_file = "")]
fn empty_hapset_file() {}

#[samaritan::test(workers = 0)]
fn no_workers() {}

#[samaritan::test(workers = 257)]
fn too_many_workers() {}

fn main() {}
