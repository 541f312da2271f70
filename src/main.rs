//! The `murk` binary: parses the command line and reports errors on stderr with exit code 2.

use clap::Parser;

fn main() {
    let cli = murk::cli::Cli::parse();
    if let Err(err) = murk::cli::run(cli) {
        eprintln!("error: {err:#}");
        std::process::exit(2);
    }
}
