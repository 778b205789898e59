//! The errors of the command line, and how each is reported.

use std::fmt;
use std::path::PathBuf;

/// Everything that makes `spvlab` exit with a failure.
#[derive(Debug)]
pub enum CliError {
    // Usage errors: exit code 2.
    /// No subcommand given.
    NoCommand,
    UnknownCommand(String),
    UnknownFlag(String),
    /// A flag that needs a value was last.
    MissingValue(&'static str),
    /// A flag that takes no value was given one (`--raw-id=1`).
    UnexpectedValue(&'static str),
    UnknownTargetEnv(String),
    /// More than one input file.
    TooManyInputs,
    /// An argument that is not valid Unicode where text is needed.
    NotUnicodeArg,
    /// Any other misuse, explained.
    Usage(String),

    // Input errors: exit code 1.
    Read { path: String, err: std::io::Error },
    Write { path: PathBuf, err: std::io::Error },
    /// The assembly text is not UTF-8 (byte offset of the first bad byte).
    NotUtf8 { path: String, offset: usize },
    /// Diagnostics were already printed; `count` errors.
    Failed { path: String, count: usize },
    /// `val` found the module invalid, with this many errors.
    Invalid { path: String, count: usize },
    /// `amber`: this many of the files given did not pass.
    NotPassed { count: usize, total: usize },

    /// An error inside a subcommand, prefixed with its name in the message.
    InCommand(&'static str, Box<CliError>),
}

impl CliError {
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::NoCommand
            | CliError::UnknownCommand(_)
            | CliError::UnknownFlag(_)
            | CliError::MissingValue(_)
            | CliError::UnexpectedValue(_)
            | CliError::UnknownTargetEnv(_)
            | CliError::TooManyInputs
            | CliError::NotUnicodeArg
            | CliError::Usage(_) => 2,
            CliError::Read { .. }
            | CliError::Write { .. }
            | CliError::NotUtf8 { .. }
            | CliError::Failed { .. }
            | CliError::Invalid { .. }
            | CliError::NotPassed { .. } => 1,
            CliError::InCommand(_, e) => e.exit_code(),
        }
    }

    pub fn in_command(self, name: &'static str) -> CliError {
        match self {
            e @ CliError::InCommand(..) => e,
            e => CliError::InCommand(name, Box::new(e)),
        }
    }

    /// Print the error on stderr (with a usage hint for usage errors).
    pub fn report(&self) {
        let (cmd, inner) = match self {
            CliError::InCommand(c, e) => (Some(*c), e.as_ref()),
            e => (None, e),
        };
        if matches!(inner, CliError::NoCommand) {
            return; // the help text was printed instead
        }
        eprintln!("error: {inner}");
        if inner.exit_code() == 2 {
            match cmd {
                Some(c) => eprintln!("Try `spvlab {c} --help`."),
                None => eprintln!("Try `spvlab --help`."),
            }
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::NoCommand => write!(f, "no command given"),
            CliError::UnknownCommand(c) => write!(f, "unknown command `{c}`"),
            CliError::UnknownFlag(a) => write!(f, "unknown option `{a}`"),
            CliError::MissingValue(flag) => write!(f, "option `{flag}` needs a value"),
            CliError::UnexpectedValue(flag) => write!(f, "option `{flag}` takes no value"),
            CliError::UnknownTargetEnv(e) => {
                write!(f, "unknown target environment `{e}` (expected one of: ")?;
                for (i, (name, _)) in spvlab_core::env::TARGET_ENVS.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{name}")?;
                }
                write!(f, ")")
            }
            CliError::TooManyInputs => write!(f, "at most one input file can be given"),
            CliError::NotUnicodeArg => write!(f, "an argument is not valid Unicode"),
            CliError::Usage(m) => f.write_str(m),
            CliError::Read { path, err } => write!(f, "cannot read `{path}`: {err}"),
            CliError::Write { path, err } => write!(f, "cannot write `{}`: {err}", path.display()),
            CliError::NotUtf8 { path, offset } => {
                write!(f, "`{path}` is not UTF-8 text (bad byte at offset {offset})")
            }
            CliError::Failed { path, count: 1 } => write!(f, "could not process `{path}` (1 error)"),
            CliError::Failed { path, count } => {
                write!(f, "could not process `{path}` ({count} errors)")
            }
            CliError::Invalid { path, count: 1 } => write!(f, "`{path}` is not valid (1 error)"),
            CliError::Invalid { path, count } => write!(f, "`{path}` is not valid ({count} errors)"),
            CliError::NotPassed { count, total } => write!(f, "{count} of {total} files did not pass"),
            CliError::InCommand(_, e) => e.fmt(f),
        }
    }
}
