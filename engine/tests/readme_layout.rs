//! The top README's `## Layout` block cannot drift from the repository: every path it names
//! exists, and it names every engine module (`engine/src/*.rs`, the folders `engine/src/*/`
//! and `engine/src/bots/*.rs`), every game folder (`engine/src/games/*/`), every top-level
//! module of the service (`service/src/*.rs` and its folders) and every top-level directory
//! of the repository. The files inside a game folder are `engine/src/games/README.md`'s
//! concern (checked in `games/mod.rs`), not the README's. Also: every relative link of the
//! README reaches a file, and a link's `#anchor` a heading of that file.
//!
//! The block's shape: one entry a line, its paths in the first column (up to two spaces),
//! several separated by `, `; a line indented under a line naming one folder (`x/`) names
//! paths inside that folder; a top-level line names paths from the repository's root.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("engine/ has a parent")
        .to_path_buf()
}

fn readme() -> String {
    let path = root().join("README.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The text of the fenced block that follows the `## Layout` heading.
fn layout_block(readme: &str) -> Vec<&str> {
    let mut lines = readme.lines().skip_while(|l| l.trim_end() != "## Layout");
    assert!(
        lines.next().is_some(),
        "the README has a `## Layout` section"
    );
    let mut lines = lines.skip_while(|l| !l.starts_with("```"));
    assert!(
        lines.next().is_some(),
        "the `## Layout` section opens a fenced block"
    );
    let block: Vec<&str> = lines.take_while(|l| !l.starts_with("```")).collect();
    assert!(!block.is_empty(), "the layout block is empty");
    block
}

/// Every path the block names, from the repository's root (a folder ends with `/`), with the
/// block's line it is on.
fn named_paths(block: &[&str]) -> Vec<(String, String)> {
    // The folders enclosing the current line: (indentation, path).
    let mut parents: Vec<(usize, String)> = Vec::new();
    let mut out = Vec::new();
    for line in block.iter().filter(|l| !l.trim().is_empty()) {
        let indent = line.len() - line.trim_start().len();
        let first = line.trim_start().split("  ").next().unwrap_or_default();
        while parents.last().is_some_and(|(i, _)| *i >= indent) {
            parents.pop();
        }
        if indent > 0 {
            assert!(
                !parents.is_empty(),
                "layout line {line:?} is indented under no folder line"
            );
        }
        let base = parents.last().map(|(_, p)| p.clone()).unwrap_or_default();
        let items: Vec<&str> = first.split(", ").collect();
        for item in &items {
            assert!(
                !item.is_empty() && !item.contains(' ') && !item.starts_with('/'),
                "layout line {line:?}: {item:?} is not a relative path"
            );
            out.push((format!("{base}{item}"), (*line).to_owned()));
        }
        if let [dir] = items[..] {
            if dir.ends_with('/') {
                parents.push((indent, format!("{base}{dir}")));
            }
        }
    }
    out
}

/// The names in `dir` (relative to the root) that are `.rs` files or folders, as the block
/// writes them (`x.rs`, `x/`), from the repository's root.
fn modules(dir: &str) -> BTreeSet<String> {
    let path = root().join(dir);
    let entries = std::fs::read_dir(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = BTreeSet::new();
    for entry in entries {
        let entry = entry.expect("a directory entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_dir() {
            out.insert(format!("{dir}{name}/"));
        } else if name.ends_with(".rs") {
            out.insert(format!("{dir}{name}"));
        }
    }
    out
}

/// The repository's top-level folders: those holding files git tracks (so that build output
/// and local runs are not asked for), or, outside a git checkout, every folder but the hidden
/// ones and those the root `.gitignore` names.
fn top_level_folders() -> BTreeSet<String> {
    let root = root();
    let tracked = std::process::Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["ls-files", "-z"])
        .output();
    if let Ok(out) = tracked {
        if out.status.success() && !out.stdout.is_empty() {
            return String::from_utf8_lossy(&out.stdout)
                .split('\0')
                .filter_map(|p| p.split_once('/').map(|(top, _)| format!("{top}/")))
                .filter(|top| !top.starts_with('.'))
                .collect();
        }
    }
    let ignored: BTreeSet<String> = std::fs::read_to_string(root.join(".gitignore"))
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().trim_matches('/').to_owned())
        .collect();
    std::fs::read_dir(&root)
        .expect("the repository's root")
        .filter_map(|e| {
            let e = e.ok()?;
            let name = e.file_name().to_string_lossy().into_owned();
            (e.path().is_dir() && !name.starts_with('.') && !ignored.contains(&name))
                .then(|| format!("{name}/"))
        })
        .collect()
}

#[test]
fn every_path_the_layout_names_exists() {
    let text = readme();
    let missing: Vec<String> = named_paths(&layout_block(&text))
        .into_iter()
        .filter(|(path, _)| {
            let p = root().join(path.trim_end_matches('/'));
            if path.ends_with('/') {
                !p.is_dir()
            } else {
                !p.is_file()
            }
        })
        .map(|(path, line)| format!("{path} (line {line:?})"))
        .collect();
    assert!(
        missing.is_empty(),
        "the README's layout names paths that do not exist:\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn the_layout_names_every_module_game_and_folder() {
    let text = readme();
    let named: BTreeSet<String> = named_paths(&layout_block(&text))
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    let mut required = BTreeSet::new();
    required.extend(modules("engine/src/"));
    required.extend(modules("engine/src/bots/"));
    required.extend(modules("engine/src/games/"));
    required.extend(modules("service/src/"));
    required.extend(top_level_folders());
    let unnamed: Vec<&String> = required.difference(&named).collect();
    assert!(
        unnamed.is_empty(),
        "the README's `## Layout` block does not name: {unnamed:?} (add a line for each)"
    );
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file's headings (outside fenced blocks).
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut out = BTreeSet::new();
    for line in markdown.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.insert(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

#[test]
fn every_relative_link_of_the_readme_resolves() {
    let text = readme();
    let mut broken = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        if fenced {
            continue;
        }
        for (i, _) in line.match_indices("](") {
            let rest = &line[i + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = &rest[..end];
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, fragment) = target.split_once('#').unwrap_or((target, ""));
            let path = if file.is_empty() {
                root().join("README.md")
            } else {
                root().join(file)
            };
            if !path.exists() {
                broken.push(format!("{target}: no such file"));
            } else if !fragment.is_empty() && path.extension().is_some_and(|e| e == "md") {
                let md = std::fs::read_to_string(&path).unwrap_or_default();
                if !anchors(&md).contains(fragment) {
                    broken.push(format!("{target}: no heading with that anchor"));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "broken links in README.md:\n  {}",
        broken.join("\n  ")
    );
}
