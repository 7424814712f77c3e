//! No file of the workspace names a file that names it back: each crate's files depend on each
//! other one way, as the crates do (see `tests::rooms` for what "names" means).

use std::path::{Path, PathBuf};

/// Every crate root of the workspace's members: libraries, binaries, integration tests, benches.
fn roots(workspace: &Path) -> Vec<PathBuf> {
    let manifest = std::fs::read_to_string(workspace.join("Cargo.toml")).unwrap();
    let members = manifest
        .lines()
        .find_map(|line| line.strip_prefix("members = "))
        .expect("the workspace lists its members");
    let mut roots = Vec::new();
    for member in members
        .trim_matches(|c| c == '[' || c == ']')
        .split(',')
        .map(|member| member.trim().trim_matches('"'))
        .filter(|member| !member.is_empty())
    {
        let dir = workspace.join(member);
        for file in ["src/lib.rs", "src/main.rs"] {
            if dir.join(file).exists() {
                roots.push(dir.join(file));
            }
        }
        for folder in ["src/bin", "tests", "benches", "examples"] {
            let Ok(entries) = std::fs::read_dir(dir.join(folder)) else {
                continue;
            };
            let mut files: Vec<PathBuf> = entries
                .map(|entry| entry.unwrap().path())
                .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
                .collect();
            files.sort();
            roots.extend(files);
        }
    }
    roots
}

#[test]
fn no_file_names_a_file_that_names_it_back() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let roots = roots(workspace);
    assert!(
        roots.len() > 20,
        "the workspace's crates are found: {roots:?}"
    );
    let mut report = String::new();
    for root in &roots {
        let graph = tests::rooms::graph(root, workspace);
        for circle in tests::rooms::circles(&graph) {
            report.push_str(&format!(
                "a circle in the crate of {}:\n{}",
                root.strip_prefix(workspace).unwrap().display(),
                tests::rooms::explain(&graph, &circle)
            ));
        }
    }
    assert!(report.is_empty(), "{report}");
}

#[test]
fn a_circle_is_found_through_a_re_export_and_a_child_module() {
    // The checker itself: a crate of three files where `a` names `b` through the root's
    // re-export and `b` names `a` through `super`.
    let dir = std::env::temp_dir().join(format!("rooms-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a;\nmod c;\npub use c::Thing;\n").unwrap();
    std::fs::write(
        dir.join("a.rs"),
        "mod b;\npub struct A;\nfn f() -> crate::Thing { todo!() }\n",
    )
    .unwrap();
    std::fs::write(dir.join("a/b.rs"), "pub fn g() -> super::A { super::A }\n").unwrap();
    std::fs::write(
        dir.join("c.rs"),
        "use crate::a::{A as Named};\npub struct Thing(Named);\n/// [`crate::a`] in a doc names nothing\npub struct Other;\n",
    )
    .unwrap();
    let graph = tests::rooms::graph(&dir.join("lib.rs"), &dir);
    assert_eq!(
        graph["lib.rs"].len(),
        0,
        "a re-export is not the root naming anything: {graph:?}"
    );
    let circles = tests::rooms::circles(&graph);
    assert_eq!(
        circles,
        vec![vec!["a.rs".to_owned(), "c.rs".to_owned()]],
        "{graph:?}"
    );
    assert!(graph["a/b.rs"].contains("a.rs"), "{graph:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
