//! What `#[tool]` accepts, and the errors it gives for misuse.
//!
//! Regenerate the `.stderr` files with `TRYBUILD=overwrite cargo test -p tests --test ui` and
//! review the diff like code.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/fail/*.rs");
}
