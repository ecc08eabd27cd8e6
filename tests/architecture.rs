//! The shape of the source tree: no source file longer than one sitting, and no module loops.
//!
//! Modules are found the way rustc finds them: from `src/lib.rs` and `src/main.rs`, following
//! `mod name;` declarations (and their `#[path]`). An edge A → B means a file of module A names
//! something in module B: a `use` or a path in code through `crate::`, `super::`, `self::`, a child
//! module's name, or (from the binary) `powder::`. Two rules, each reported with the files involved:
//! - no two files import each other, directly or around a loop (strongly connected components of
//!   the file graph have one member);
//! - the crate's top-level modules (`sim`, `collider`, `scene`, `app` …) form a stack: no arrow
//!   points back up (the graph of top-level modules has no loop either).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// Longest source file allowed, in lines: "a file a reader takes in one sitting".
const MAX_LINES: usize = 500;

/// One module that has a file of its own.
struct ModuleFile {
    /// `lib` or `bin` followed by the module path, e.g. `["lib", "sim", "params"]`.
    path: Vec<String>,
    file: PathBuf,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The value of a `#[path = "…"]` attribute, if any.
fn path_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| {
        if !attr.path().is_ident("path") {
            return None;
        }
        match &attr.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        }
    })
}

/// Every module file reachable from `file` (module path `path`), following `mod` declarations.
fn discover(file: &Path, path: Vec<String>, out: &mut Vec<ModuleFile>) {
    let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let file_dir = file.parent().expect("a source file has a directory").to_path_buf();
    // `mod x;` in lib.rs, main.rs or a mod.rs looks beside the file; in foo.rs it looks in foo/.
    let children_dir = if matches!(name, "lib.rs" | "main.rs" | "mod.rs") {
        file_dir.clone()
    } else {
        file_dir.join(file.file_stem().expect("a .rs file has a stem"))
    };
    out.push(ModuleFile { path: path.clone(), file: file.to_path_buf() });
    discover_items(&parsed.items, &file_dir, &children_dir, &path, out);
}

fn discover_items(
    items: &[syn::Item],
    file_dir: &Path,
    children_dir: &Path,
    path: &[String],
    out: &mut Vec<ModuleFile>,
) {
    for item in items {
        let syn::Item::Mod(module) = item else { continue };
        let ident = module.ident.to_string();
        let mut child_path = path.to_vec();
        child_path.push(ident.clone());
        if let Some((_, items)) = &module.content {
            // An inline module: its `mod x;` children live in a folder named after it.
            discover_items(items, file_dir, &children_dir.join(&ident), &child_path, out);
            continue;
        }
        let child = match path_attribute(&module.attrs) {
            Some(rel) => file_dir.join(rel),
            None => {
                let flat = children_dir.join(format!("{ident}.rs"));
                if flat.exists() { flat } else { children_dir.join(&ident).join("mod.rs") }
            }
        };
        discover(&child, child_path, out);
    }
}

/// Collects every path a file names: `use` trees and paths in types and expressions, each
/// with the inline module it was written in.
struct PathCollector {
    /// Inline modules (`mod tests { … }`) around the current item.
    inline: Vec<String>,
    found: Vec<(Vec<String>, Vec<String>)>,
}

impl PathCollector {
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.push(prefix, Some(n.ident.to_string())),
            syn::UseTree::Rename(r) => self.push(prefix, Some(r.ident.to_string())),
            syn::UseTree::Glob(_) => self.push(prefix, None),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| self.use_tree(prefix, t)),
        }
    }

    fn push(&mut self, prefix: &[String], last: Option<String>) {
        let mut path = prefix.to_vec();
        path.extend(last.filter(|l| l != "self"));
        self.found.push((self.inline.clone(), path));
    }
}

impl<'ast> Visit<'ast> for PathCollector {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &item.tree);
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.inline.push(item.ident.to_string());
        syn::visit::visit_item_mod(self, item);
        self.inline.pop();
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.found.push((self.inline.clone(), segments));
        syn::visit::visit_path(self, path);
    }
}

/// The module a path names, as the longest prefix that is a module with a file.
fn resolve(modules: &BTreeSet<Vec<String>>, here: &[String], path: &[String]) -> Option<Vec<String>> {
    let first = path.first()?;
    let mut base: Vec<String>;
    let mut rest = &path[..];
    match first.as_str() {
        "crate" => {
            base = here[..1].to_vec();
            rest = &rest[1..];
        }
        "powder" if here[0] == "bin" => {
            base = vec!["lib".to_string()];
            rest = &rest[1..];
        }
        "self" => {
            base = here.to_vec();
            rest = &rest[1..];
        }
        "super" => {
            base = here.to_vec();
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
        }
        _ => {
            // A path through a child module of this one (2018 uniform paths).
            let mut child = here.to_vec();
            child.push(first.clone());
            if !modules.contains(&child) {
                return None;
            }
            base = here.to_vec();
        }
    }
    base.extend(rest.iter().cloned());
    (1..=base.len()).rev().map(|n| base[..n].to_vec()).find(|p| modules.contains(p))
}

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs" || e == "wgsl") {
            out.push(path);
        }
    }
}

#[test]
fn no_source_file_is_longer_than_one_sitting() {
    let mut files = Vec::new();
    for dir in ["src", "shaders", "tests", "examples"] {
        source_files(&root().join(dir), &mut files);
    }
    assert!(files.len() > 100, "found only {} source files", files.len());
    let mut long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let lines = fs::read_to_string(f).ok()?.lines().count();
            (lines > MAX_LINES).then(|| format!("{} ({lines} lines)", f.strip_prefix(root()).unwrap_or(f).display()))
        })
        .collect();
    long.sort();
    assert!(long.is_empty(), "files over {MAX_LINES} lines; split them by what each part does:\n{}", long.join("\n"));
}

/// The module graph: every module file and the module files it names.
fn module_graph() -> (Vec<ModuleFile>, BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) {
    let mut files = Vec::new();
    discover(&root().join("src/lib.rs"), vec!["lib".into()], &mut files);
    discover(&root().join("src/main.rs"), vec!["bin".into()], &mut files);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| f.path.clone()).collect();
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for module in &files {
        let text = fs::read_to_string(&module.file).expect("read above");
        let parsed = syn::parse_file(&text).expect("parsed above");
        let mut collector = PathCollector { inline: Vec::new(), found: Vec::new() };
        collector.visit_file(&parsed);
        let targets = edges.entry(module.path.clone()).or_default();
        for (inline, path) in collector.found {
            let mut here = module.path.clone();
            here.extend(inline);
            if let Some(target) = resolve(&modules, &here, &path) {
                // Naming one's own file is no edge; naming a parent module (`super::X`) is.
                if target != module.path {
                    targets.insert(target);
                }
            }
        }
    }
    (files, edges)
}

/// Strongly connected components with more than one member (Tarjan's algorithm).
fn loops<N: Ord + Clone>(edges: &BTreeMap<N, BTreeSet<N>>) -> Vec<Vec<N>> {
    struct State<N> {
        index: BTreeMap<N, usize>,
        low: BTreeMap<N, usize>,
        stack: Vec<N>,
        on_stack: BTreeSet<N>,
        found: Vec<Vec<N>>,
    }
    fn visit<N: Ord + Clone>(v: &N, edges: &BTreeMap<N, BTreeSet<N>>, s: &mut State<N>) {
        let i = s.index.len();
        s.index.insert(v.clone(), i);
        s.low.insert(v.clone(), i);
        s.stack.push(v.clone());
        s.on_stack.insert(v.clone());
        for w in edges.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(w, edges, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v.clone(), low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v.clone(), low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(&w);
                let done = &w == v;
                component.push(w);
                if done {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !state.index.contains_key(v) {
            visit(v, edges, &mut state);
        }
    }
    state.found
}

fn describe(component: &[Vec<String>], edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> String {
    let members: BTreeSet<&Vec<String>> = component.iter().collect();
    component
        .iter()
        .map(|m| {
            let to: Vec<String> = edges[m].iter().filter(|t| members.contains(t)).map(|t| t.join("::")).collect();
            format!("  {} -> {}", m.join("::"), to.join(", "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn no_file_imports_a_file_that_imports_it() {
    let (files, edges) = module_graph();
    assert!(files.len() > 100, "found only {} module files", files.len());
    let found = loops(&edges);
    let text: Vec<String> = found.iter().map(|c| describe(c, &edges)).collect();
    assert!(found.is_empty(), "{} module loops:\n{}", found.len(), text.join("\n\n"));
}

#[test]
fn top_level_modules_form_a_stack() {
    let (_, edges) = module_graph();
    let mut top: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (from, targets) in &edges {
        for to in targets {
            let (a, b) = (from[..from.len().min(2)].to_vec(), to[..to.len().min(2)].to_vec());
            top.entry(b.clone()).or_default();
            if a != b && a.len() == 2 && b.len() == 2 {
                top.entry(a).or_default().insert(b);
            }
        }
    }
    let found = loops(&top);
    let text: Vec<String> = found.iter().map(|c| describe(c, &top)).collect();
    assert!(found.is_empty(), "top-level modules in a loop:\n{}", text.join("\n\n"));
}

/// The checker sees the loops it is meant to see (a module graph with a known loop).
#[test]
fn loop_finder_finds_a_planted_loop() {
    let n = |s: &str| vec![s.to_string()];
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    edges.insert(n("a"), [n("b")].into());
    edges.insert(n("b"), [n("c")].into());
    edges.insert(n("c"), [n("a"), n("d")].into());
    edges.insert(n("d"), BTreeSet::new());
    assert_eq!(loops(&edges), vec![vec![n("a"), n("b"), n("c")]]);
    edges.get_mut(&n("c")).expect("c is a node").remove(&n("a"));
    assert!(loops(&edges).is_empty());
}
