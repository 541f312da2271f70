//! Every subcommand's `--help` points at its manual page, and the page is there.

use std::path::Path;
use std::process::Command;

#[test]
fn every_subcommand_help_names_a_manual_page_that_exists() {
    let subcommands = [
        "perft",
        "view",
        "match",
        "tournament",
        "results",
        "replay",
        "belief-eval",
        "bench",
        "uci-fog",
        "datagen",
        "serve",
    ];
    for sub in subcommands {
        let out = Command::new(env!("CARGO_BIN_EXE_murk")).args([sub, "--help"]).output().expect("run murk");
        assert!(out.status.success(), "murk {sub} --help failed");
        let text = String::from_utf8(out.stdout).expect("utf-8");
        let page = text
            .split_whitespace()
            .find(|w| w.starts_with("docs/") && w.ends_with(".md"))
            .unwrap_or_else(|| panic!("murk {sub} --help names no docs/ page:\n{text}"));
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(page);
        let manual = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = format!("murk {sub}");
        assert!(manual.contains(&name), "{page} does not mention `{name}`");
    }
}
