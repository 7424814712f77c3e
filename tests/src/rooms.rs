//! Which file of a crate names which: the file-level import graph of a crate's sources, and the
//! circles in it.
//!
//! A file *names* another when a path in its code (a `use`, a type, a call, a macro) resolves to
//! an item the other file defines. Paths are resolved the way rustc resolves them: `crate::`,
//! `super::`, `self::`, a child module's name, or a name the module imported, followed through
//! the module tree (`mod x;` and `#[path]`) and through re-exports to the file that defines the
//! item. A re-export (`pub use`, `pub(crate) use`) is a module's front, not something its own
//! code uses: it is followed, never counted as the re-exporting file naming anything. Doc
//! comments and string literals name nothing.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// A module of the crate: the file it is written in and what it declares.
#[derive(Default)]
struct Module {
    file: PathBuf,
    /// Child modules by name.
    children: HashMap<String, usize>,
    /// Names brought in by `use`: the name and the absolute path it stands for, and whether the
    /// `use` is a re-export.
    imports: HashMap<String, Vec<String>>,
    /// Whether `*` glob imports were made (their names cannot be listed without rustc).
    globs: Vec<Vec<String>>,
    parent: Option<usize>,
}

/// The module tree of one crate.
struct Tree {
    modules: Vec<Module>,
    /// Each file's parsed syntax and the module its top level is.
    files: Vec<(PathBuf, syn::File, usize)>,
}

/// The file-level import graph of the crate whose root file is `root` (a `lib.rs`, `main.rs`,
/// or an integration test's file): each file (relative to `base`) and the files it names.
///
/// # Panics
///
/// When a file cannot be read or parsed.
pub fn graph(root: &Path, base: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut tree = Tree {
        modules: Vec::new(),
        files: Vec::new(),
    };
    load(&mut tree, root, None, None, true);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, file, module) in &tree.files {
        let from = shown(path, base);
        let mut visitor = Names {
            tree: &tree,
            module_stack: vec![*module],
            named: BTreeSet::new(),
            in_reexport: false,
        };
        visitor.visit_file(file);
        let entry = edges.entry(from.clone()).or_default();
        for named in visitor.named {
            let named = shown(&named, base);
            if named != from {
                entry.insert(named);
            }
        }
    }
    edges
}

/// Every circle of `graph` (its strongly connected parts of more than one file), each shown as
/// its files in order.
pub fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Tarjan's algorithm, over names kept in order so the report is stable.
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: HashMap<&'a str, usize>,
        low: HashMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        found: Vec<Vec<String>>,
    }
    fn connect<'a>(state: &mut State<'a>, node: &'a str) {
        state.index.insert(node, state.next);
        state.low.insert(node, state.next);
        state.next += 1;
        state.stack.push(node);
        state.on_stack.insert(node);
        for next in state.graph.get(node).into_iter().flatten() {
            let next = next.as_str();
            if !state.index.contains_key(next) {
                connect(state, next);
                let low = state.low[node].min(state.low[next]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(next) {
                let low = state.low[node].min(state.index[next]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut part = Vec::new();
            while let Some(top) = state.stack.pop() {
                state.on_stack.remove(top);
                part.push(top.to_owned());
                if top == node {
                    break;
                }
            }
            if part.len() > 1 {
                part.sort();
                state.found.push(part);
            }
        }
    }
    let mut state = State {
        graph,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !state.index.contains_key(node.as_str()) {
            connect(&mut state, node);
        }
    }
    state.found.sort();
    state.found
}

/// A circle as a reader follows it: each file and, under it, the files of the circle it names.
pub fn explain(graph: &BTreeMap<String, BTreeSet<String>>, circle: &[String]) -> String {
    let mut text = String::new();
    for file in circle {
        let named: Vec<&str> = graph[file]
            .iter()
            .filter(|other| circle.contains(other))
            .map(String::as_str)
            .collect();
        let _ = writeln!(text, "  {file} names {}", named.join(", "));
    }
    text
}

fn shown(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Reads the module in `file` (and, through its `mod x;` items, its children).
fn load(tree: &mut Tree, file: &Path, parent: Option<usize>, name: Option<&str>, root: bool) {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|error| panic!("{} cannot be read: {error}", file.display()));
    let syntax = syn::parse_file(&text)
        .unwrap_or_else(|error| panic!("{} cannot be parsed: {error}", file.display()));
    let module = tree.modules.len();
    tree.modules.push(Module {
        file: file.to_path_buf(),
        parent,
        ..Module::default()
    });
    if let (Some(parent), Some(name)) = (parent, name) {
        tree.modules[parent]
            .children
            .insert(name.to_owned(), module);
    }
    // Where a child `mod x;` of this file lives: beside a crate root or a `mod.rs`, else in a
    // folder named after this file.
    let dir = if root || file.file_name().is_some_and(|name| name == "mod.rs") {
        file.parent().unwrap_or(Path::new(".")).to_path_buf()
    } else {
        file.with_extension("")
    };
    items(tree, file, &syntax.items, module, &dir);
    tree.files.push((file.to_path_buf(), syntax, module));
}

fn items(tree: &mut Tree, file: &Path, list: &[syn::Item], module: usize, dir: &Path) {
    for item in list {
        match item {
            syn::Item::Mod(child) => {
                let name = child.ident.to_string();
                let path = path_attr(&child.attrs);
                match &child.content {
                    Some((_, inner)) => {
                        let inline = tree.modules.len();
                        tree.modules.push(Module {
                            file: file.to_path_buf(),
                            parent: Some(module),
                            ..Module::default()
                        });
                        tree.modules[module].children.insert(name.clone(), inline);
                        items(tree, file, inner, inline, &dir.join(&name));
                    }
                    None => {
                        let child_file = match path {
                            Some(path) => dir.join(path),
                            None => {
                                let flat = dir.join(format!("{name}.rs"));
                                if flat.exists() {
                                    flat
                                } else {
                                    dir.join(&name).join("mod.rs")
                                }
                            }
                        };
                        load(tree, &child_file, Some(module), Some(&name), false);
                    }
                }
            }
            syn::Item::Use(use_item) => {
                let mut found = Vec::new();
                flatten(&use_item.tree, &mut Vec::new(), &mut found);
                for (name, path) in found {
                    let path = absolute(tree, module, &path);
                    if name == "*" {
                        tree.modules[module].globs.push(path);
                    } else {
                        tree.modules[module].imports.insert(name, path);
                    }
                }
            }
            _ => {}
        }
    }
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| {
        let syn::Meta::NameValue(meta) = &attr.meta else {
            return None;
        };
        if !meta.path.is_ident("path") {
            return None;
        }
        match &meta.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) => Some(text.value()),
            _ => None,
        }
    })
}

/// The names a `use` tree brings in, each with the path it stands for.
fn flatten(tree: &syn::UseTree, prefix: &mut Vec<String>, found: &mut Vec<(String, Vec<String>)>) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            flatten(&path.tree, prefix, found);
            prefix.pop();
        }
        syn::UseTree::Name(name) => {
            let ident = name.ident.to_string();
            let mut path = prefix.clone();
            if ident == "self" {
                if let Some(last) = prefix.last() {
                    found.push((last.clone(), path));
                }
            } else {
                path.push(ident.clone());
                found.push((ident, path));
            }
        }
        syn::UseTree::Rename(rename) => {
            let mut path = prefix.clone();
            let ident = rename.ident.to_string();
            if ident != "self" {
                path.push(ident);
            }
            found.push((rename.rename.to_string(), path));
        }
        syn::UseTree::Glob(_) => found.push(("*".to_owned(), prefix.clone())),
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                flatten(tree, prefix, found);
            }
        }
    }
}

/// `path` as seen from `module`, written from the crate root (`crate`, then module names), or
/// left as it is when it leaves the crate.
fn absolute(tree: &Tree, module: usize, path: &[String]) -> Vec<String> {
    let Some(first) = path.first() else {
        return Vec::new();
    };
    let mut at = module;
    let mut rest = path;
    match first.as_str() {
        "crate" => return path.to_vec(),
        "self" => rest = &path[1..],
        "super" => {
            while rest.first().is_some_and(|segment| segment == "super") {
                at = tree.modules[at].parent.unwrap_or(at);
                rest = &rest[1..];
            }
        }
        _ => {
            if !tree.modules[module].children.contains_key(first) {
                return path.to_vec();
            }
        }
    }
    let mut written = module_path(tree, at);
    written.extend(rest.iter().cloned());
    written
}

/// `crate` and the names leading from the root to `module`.
fn module_path(tree: &Tree, module: usize) -> Vec<String> {
    let mut names = Vec::new();
    let mut at = module;
    while let Some(parent) = tree.modules[at].parent {
        let name = tree.modules[parent]
            .children
            .iter()
            .find(|(_, child)| **child == at)
            .map(|(name, _)| name.clone())
            .unwrap_or_default();
        names.push(name);
        at = parent;
    }
    names.push("crate".to_owned());
    names.reverse();
    names
}

impl Tree {
    /// The file defining what the absolute `path` names, if it is in the crate.
    fn resolve(&self, path: &[String], depth: usize) -> Option<PathBuf> {
        if depth > 16 || path.first().is_none_or(|first| first != "crate") {
            return None;
        }
        let mut at = 0;
        for (position, segment) in path.iter().enumerate().skip(1) {
            if let Some(child) = self.modules[at].children.get(segment) {
                at = *child;
                continue;
            }
            // A name the module imported: what it stands for.
            if let Some(target) = self.modules[at].imports.get(segment) {
                let mut target = target.clone();
                target.extend(path[position + 1..].iter().cloned());
                if let Some(file) = self.resolve(&target, depth + 1) {
                    return Some(file);
                }
            }
            // A glob's names: a child module or import of the module it names.
            for glob in &self.modules[at].globs {
                let mut target = glob.clone();
                target.extend(path[position..].iter().cloned());
                if let Some(file) = self.resolve(&target, depth + 1) {
                    return Some(file);
                }
            }
            break;
        }
        Some(self.modules[at].file.clone())
    }
}

struct Names<'a> {
    tree: &'a Tree,
    module_stack: Vec<usize>,
    named: BTreeSet<PathBuf>,
    in_reexport: bool,
}

impl Names<'_> {
    fn module(&self) -> usize {
        *self.module_stack.last().unwrap_or(&0)
    }

    fn name(&mut self, segments: &[String]) {
        // A path of one keyword is the value `self` (or a visibility's `crate`): the file itself.
        if self.in_reexport
            || segments.is_empty()
            || (segments.len() == 1 && matches!(segments[0].as_str(), "crate" | "self" | "super"))
        {
            return;
        }
        let module = self.module();
        let first = &segments[0];
        let path = match first.as_str() {
            "crate" | "self" | "super" => absolute(self.tree, module, segments),
            _ => {
                if self.tree.modules[module].children.contains_key(first) {
                    absolute(self.tree, module, segments)
                } else if let Some(target) = self.lookup(module, first) {
                    let mut target = target;
                    target.extend(segments[1..].iter().cloned());
                    target
                } else {
                    return;
                }
            }
        };
        if let Some(file) = self.tree.resolve(&path, 0) {
            if std::env::var_os("ROOMS_DEBUG").is_some() {
                eprintln!("{segments:?} -> {path:?} -> {}", file.display());
            }
            self.named.insert(file);
        }
    }

    /// What a plain name stands for in `module`: an import of the module's own.
    fn lookup(&self, module: usize, name: &str) -> Option<Vec<String>> {
        self.tree.modules[module].imports.get(name).cloned()
    }
}

impl<'ast> Visit<'ast> for Names<'_> {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        let Some((_, items)) = &item.content else {
            return;
        };
        let name = item.ident.to_string();
        let Some(child) = self.tree.modules[self.module()]
            .children
            .get(&name)
            .copied()
        else {
            return;
        };
        self.module_stack.push(child);
        for inner in items {
            self.visit_item(inner);
        }
        self.module_stack.pop();
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let reexport = !matches!(item.vis, syn::Visibility::Inherited);
        if reexport {
            return;
        }
        let mut found = Vec::new();
        flatten(&item.tree, &mut Vec::new(), &mut found);
        for (_, path) in found {
            // Only what leads into the crate: a plain first segment naming nothing of the crate
            // is an outside crate.
            self.name(&path);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path
            .segments
            .iter()
            .map(|segment| segment.ident.to_string())
            .collect();
        self.name(&segments);
        syn::visit::visit_path(self, path);
    }

    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {
        // `pub(crate)`, `pub(super)`: who may see an item, not something the file uses.
    }

    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {
        // Attributes (docs, cfgs, derives' arguments) name nothing a file imports.
    }
}
