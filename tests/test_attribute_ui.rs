//! `#[samaritan::test]`'s compile errors: each bad argument or function
//! is an error with a lowercase message at its span (`tests/ui/*.stderr`
//! hold them), and the edges of every range compile.
//!
//! The errors do not depend on the `sim` feature, so this runs in the
//! production test run only (trybuild builds samaritan once more, with the
//! features of this build). `TRYBUILD=overwrite` rewrites the `.stderr`
//! files after a deliberate change.
#![cfg(not(feature = "sim"))]

#[test]
fn bad_arguments_and_functions_are_compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/bad_arguments.rs");
    t.compile_fail("tests/ui/bad_functions.rs");
    t.pass("tests/ui/edge_values.rs");
}
