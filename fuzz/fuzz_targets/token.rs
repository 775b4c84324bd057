//! Any text: `Schedule::from_token` returns, never panics, and a schedule
//! it reads encodes to a token that reads the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use samaritan_sim::Schedule;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(schedule) = Schedule::from_token(&text) {
        assert_eq!(Schedule::from_token(&schedule.to_token()), Ok(schedule));
    }
});
