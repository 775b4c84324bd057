// The edges of every range compile (the builder accepts them too).
#![deny(warnings)]

#[samaritan::test(pct_depth = 1, max_steps = 1, max_executions = 1, watchdog_ms = 100, workers = 1)]
fn lower_edges() {}

#[samaritan::test(pct_depth = 64, stack_size = 1073741824, preemptions = 4294967295, seed = 18446744073709551615, workers = 256)]
fn upper_edges() {}

#[samaritan::test(max_time = 0.001, strategy = "round-robin")]
async fn fractional_time() {}

#[samaritan::test(max_time = "none", strategy = "cb-por", hapset_file = "target/x.hapset")]
fn unlimited_time() -> Result<(), String> {
    Ok(())
}

fn main() {}
