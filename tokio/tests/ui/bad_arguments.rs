extern crate samaritan_tokio as tokio;

#[tokio::test(flavor = "single")]
async fn unknown_flavor() {}

#[tokio::test(worker_threads = 0)]
async fn no_workers() {}

#[tokio::test(flavor = "current_thread", worker_threads = 2)]
async fn workers_for_current_thread() {}

#[tokio::test(start_paused = 1)]
async fn start_paused_is_not_a_bool() {}

#[tokio::test(strategy = "dfs")]
async fn samaritans_own_argument() {}

#[tokio::test(flavor = "multi_thread", flavor = "multi_thread")]
async fn flavor_twice() {}

#[tokio::test]
fn not_async() {}

fn main() {}
