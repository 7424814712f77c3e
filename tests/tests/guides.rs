//! Every guide in `docs/` is compiled: each is one of the `tests` crate's doctest items.

#[test]
fn every_guide_is_a_doctest() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    let lib = std::fs::read_to_string(root.join("tests/src/lib.rs")).unwrap();
    let mut guides: Vec<String> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .collect();
    guides.sort();
    assert!(guides.len() >= 5, "{guides:?}");
    let missing: Vec<&String> = guides
        .iter()
        .filter(|name| !lib.contains(&format!("= \"{name}\"")))
        .collect();
    assert!(
        missing.is_empty(),
        "guides not compiled as doctests: {missing:?}"
    );
}
