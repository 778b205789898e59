//! `spvlab`: the native command line of spvlab.
//!
//! One module per subcommand under [`cmd`] (`as`, `dis`, `val`, `cfg`,
//! `reflect`), each a [`cmd::Command`] in [`cmd::COMMANDS`]; a new subcommand
//! (`run`, `flesh`) is a new module and one line in that table. `val`, `cfg` and
//! `reflect` read core's one [`spvlab_core::analysis::Analysis`] of their input
//! ([`io::analyze`]). Exit codes: 0 success, 1 bad input (or a file that cannot
//! be read or written), 2 bad usage.

mod args;
mod cmd;
mod error;
mod io;
mod words;

use std::ffi::OsString;
use std::process::ExitCode;

use error::CliError;

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            e.report();
            ExitCode::from(e.exit_code())
        }
    }
}

fn run(mut args: Vec<OsString>) -> Result<(), CliError> {
    if args.is_empty() {
        eprint!("{}", top_help());
        return Err(CliError::NoCommand);
    }
    let first = args.remove(0);
    let name = first.to_string_lossy();
    match name.as_ref() {
        "-h" | "--help" => {
            io::print_stdout(&top_help())?;
            Ok(())
        }
        "-V" | "--version" => {
            io::print_stdout(&format!("spvlab {VERSION}\n"))?;
            Ok(())
        }
        "help" => match args.first().map(|a| a.to_string_lossy()) {
            None => io::print_stdout(&top_help()),
            Some(c) => match cmd::find(&c) {
                Some(command) => io::print_stdout(command.help),
                None => Err(CliError::UnknownCommand(c.into_owned())),
            },
        },
        #[cfg(feature = "gpu")]
        cmd::run::child::SUBCOMMAND => cmd::run::child::serve(),
        other => match cmd::find(other) {
            Some(command) => (command.run)(args).map_err(|e| e.in_command(command.name)),
            None => Err(CliError::UnknownCommand(other.to_owned())),
        },
    }
}

fn top_help() -> String {
    let mut s = format!(
        "spvlab {VERSION}: a SPIR-V playground on the command line\n\n\
         Usage: spvlab <command> [options]\n\nCommands:\n"
    );
    for c in cmd::COMMANDS {
        s.push_str(&format!("  {:<8}{}\n", c.name, c.summary));
    }
    s.push_str(
        "\nOptions:\n  -h, --help      Print this help (or `spvlab <command> --help`).\n  \
         -V, --version   Print the version.\n\n\
         Exit status: 0 success, 1 bad input, 2 bad usage.\n",
    );
    s
}
