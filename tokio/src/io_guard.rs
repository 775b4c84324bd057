//! The error of network and file I/O inside an exploration.

use std::io;

/// Returns the error `call` gives inside an exploration, where network and
/// file I/O are not simulated; `Ok` outside one.
pub(crate) fn refuse_inside_exploration(call: &str) -> io::Result<()> {
    if crate::exploring() {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!(
                "`{call}` inside a samaritan exploration: network and file I/O are not simulated; \
                 run it outside the exploration or give the code under test an in-memory stand-in"
            ),
        ));
    }
    Ok(())
}
