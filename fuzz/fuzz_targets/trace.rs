//! Any text: `Trace::parse` returns, never panics, and what it reads
//! writes back to text that reads the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use samaritan_sim::Trace;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(trace) = Trace::parse(&text) {
        assert_eq!(Trace::parse(&trace.to_file()), Ok(trace));
    }
});
