extern crate samaritan_tokio as tokio;

#[tokio::test(flavor = "multi_thread", worker_threads = 2, start_paused = true)]
async fn every_argument() {}

#[tokio::test(flavor = "current_thread", crate = "tokio")]
async fn a_crate_path() -> Result<(), std::io::Error> {
    Ok(())
}

fn main() {}
