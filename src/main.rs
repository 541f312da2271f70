//! The `murk` binary: parses the command line and reports errors on stderr with exit code 2.

use clap::Parser;

fn main() {
    let cli = murk::cli::Cli::parse();
    if let Err(err) = murk::cli::run(cli) {
        // A closed stdout (e.g. `murk perft ... | head`) is a normal way to stop reading.
        let broken_pipe =
            err.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe);
        if broken_pipe {
            return;
        }
        eprintln!("error: {err:#}");
        std::process::exit(2);
    }
}
