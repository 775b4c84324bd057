// Functions `#[samaritan::test]` cannot make a test of.

#[samaritan::test]
#[test]
fn declared_twice() {}

#[samaritan::test]
fn takes_arguments(n: u32) {
    let _ = n;
}

#[samaritan::test]
fn generic<T>() {}

#[samaritan::test]
unsafe fn not_safe() {}

fn main() {}
