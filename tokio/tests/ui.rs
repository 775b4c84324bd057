//! `#[tokio::test]`'s compile errors under `sim`: tokio's arguments are
//! checked (`tests/ui/*.stderr` hold the messages); every one tokio
//! accepts compiles. Without `sim` the attribute is tokio's own.
//! `TRYBUILD=overwrite` rewrites the `.stderr` files after a deliberate
//! change.

#[test]
fn tokios_arguments_are_checked() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/bad_arguments.rs");
    t.pass("tests/ui/arguments.rs");
}
