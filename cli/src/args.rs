//! A small hand-written argument parser shared by the subcommands.
//!
//! Options are `-x`, `--long` or `--long=value`; a value may also be the next
//! argument (`-o out.spv`, `--target-env vulkan1.1`). `-` alone is a positional
//! argument (stdin / stdout), and after `--` every argument is positional.

use std::ffi::OsString;

use spvlab_core::TargetEnv;

use crate::error::CliError;
use crate::io::{Input, Output};

/// One parsed argument.
#[derive(Debug, PartialEq, Eq)]
pub enum Arg {
    /// An option, with its `=value` part if it had one.
    Flag { name: String, inline: Option<OsString> },
    Positional(OsString),
}

pub struct Parser {
    args: std::vec::IntoIter<OsString>,
    positional_only: bool,
}

impl Parser {
    pub fn new(args: Vec<OsString>) -> Parser {
        Parser { args: args.into_iter(), positional_only: false }
    }

    pub fn next_arg(&mut self) -> Option<Arg> {
        loop {
            let a = self.args.next()?;
            if self.positional_only {
                return Some(Arg::Positional(a));
            }
            let Some(s) = a.to_str() else { return Some(Arg::Positional(a)) };
            if s == "--" {
                self.positional_only = true;
                continue;
            }
            if s == "-" || !s.starts_with('-') {
                return Some(Arg::Positional(a));
            }
            return Some(match s.split_once('=') {
                Some((name, value)) if s.starts_with("--") => {
                    Arg::Flag { name: name.into(), inline: Some(value.into()) }
                }
                _ => Arg::Flag { name: s.into(), inline: None },
            });
        }
    }

    /// The value of option `flag`: its `=value` part, else the next argument.
    pub fn value(&mut self, flag: &'static str, inline: Option<OsString>) -> Result<OsString, CliError> {
        match inline {
            Some(v) => Ok(v),
            None => self.args.next().ok_or(CliError::MissingValue(flag)),
        }
    }

    /// The value of option `flag` as text.
    pub fn text_value(&mut self, flag: &'static str, inline: Option<OsString>) -> Result<String, CliError> {
        self.value(flag, inline)?.into_string().map_err(|_| CliError::NotUnicodeArg)
    }

    /// The value of option `flag` as a whole number.
    pub fn number<T: std::str::FromStr>(&mut self, flag: &'static str, inline: Option<OsString>) -> Result<T, CliError> {
        let v = self.text_value(flag, inline)?;
        v.parse().map_err(|_| CliError::Usage(format!("{flag} takes a whole number, not `{v}`")))
    }

    /// The value of `--target-env`, as SPIRV-Tools spells the environments.
    pub fn target_env(&mut self, inline: Option<OsString>) -> Result<spvlab_core::TargetEnv, CliError> {
        let e = self.text_value("--target-env", inline)?;
        spvlab_core::TargetEnv::parse(&e).ok_or(CliError::UnknownTargetEnv(e))
    }
}

/// Fail when an option that takes no value was given one.
pub fn no_value(flag: &'static str, inline: &Option<OsString>) -> Result<(), CliError> {
    match inline {
        Some(_) => Err(CliError::UnexpectedValue(flag)),
        None => Ok(()),
    }
}

/// What every subcommand's arguments give: the input (`None`: stdin), the
/// output and the target environment.
pub struct Common {
    pub input: Option<Input>,
    pub output: Output,
    pub env: TargetEnv,
}

/// Parse a subcommand's arguments, in order: `-h`/`--help` prints `help` and
/// gives `None`; `-o` sets the output when the command has one (`output`, its
/// default; a command without one hands `-o` to `flag` like any other option);
/// `--target-env` sets the environment when `target_env` (else it goes to
/// `flag` too); the first positional is the input and a
/// second one is an error. Every other option goes to `flag`, which fails with
/// [`CliError::UnknownFlag`] for those it does not know.
pub fn parse(
    args: Vec<OsString>,
    help: &str,
    output: Option<Output>,
    target_env: bool,
    mut flag: impl FnMut(&mut Parser, String, Option<OsString>) -> Result<(), CliError>,
) -> Result<Option<Common>, CliError> {
    let has_output = output.is_some();
    let mut c = Common { input: None, output: output.unwrap_or(Output::Stdout), env: TargetEnv::default() };
    let mut p = Parser::new(args);
    while let Some(arg) = p.next_arg() {
        match arg {
            Arg::Flag { name, inline } => match name.as_str() {
                "-h" | "--help" => {
                    crate::io::print_stdout(help)?;
                    return Ok(None);
                }
                "-o" if has_output => c.output = Output::from_arg(&p.value("-o", inline)?),
                "--target-env" if target_env => c.env = p.target_env(inline)?,
                _ => flag(&mut p, name, inline)?,
            },
            Arg::Positional(a) if c.input.is_none() => c.input = Some(Input::from_arg(&a)),
            Arg::Positional(_) => return Err(CliError::TooManyInputs),
        }
    }
    Ok(Some(c))
}

/// An option that takes no value and sets `field` to `to`.
pub fn set(flag: &'static str, inline: &Option<OsString>, field: &mut bool, to: bool) -> Result<(), CliError> {
    no_value(flag, inline)?;
    *field = to;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Vec<Arg> {
        let mut p = Parser::new(args.iter().map(OsString::from).collect());
        std::iter::from_fn(|| p.next_arg()).collect()
    }

    fn flag(name: &str, inline: Option<&str>) -> Arg {
        Arg::Flag { name: name.into(), inline: inline.map(OsString::from) }
    }

    #[test]
    fn flags_values_and_positionals() {
        assert_eq!(
            parse(&["--raw-id", "--target-env=spv1.0", "-", "a.spv", "--", "--x"]),
            vec![
                flag("--raw-id", None),
                flag("--target-env", Some("spv1.0")),
                Arg::Positional("-".into()),
                Arg::Positional("a.spv".into()),
                Arg::Positional("--x".into()),
            ]
        );
    }

    #[test]
    fn value_from_next_argument() {
        let mut p = Parser::new(vec!["-o".into(), "out.spv".into()]);
        let Some(Arg::Flag { inline, .. }) = p.next_arg() else { panic!() };
        assert_eq!(p.value("-o", inline).unwrap(), OsString::from("out.spv"));
        assert!(matches!(p.value("-o", None), Err(CliError::MissingValue("-o"))));
    }

    #[test]
    fn common_options_and_the_rest() {
        let args = |a: &[&str]| a.iter().map(OsString::from).collect::<Vec<_>>();
        let mut rest = Vec::new();
        let c = super::parse(args(&["--x", "-o", "o.spv", "in.spv", "--target-env=spv1.3"]), "", Some(Output::Stdout), true, |_, n, _| {
            rest.push(n);
            Ok(())
        })
        .unwrap()
        .unwrap();
        assert_eq!(rest, vec!["--x".to_string()]);
        assert_eq!(c.output, Output::File("o.spv".into()));
        assert_eq!(c.input, Some(Input::File("in.spv".into())));
        assert_eq!(c.env, TargetEnv::Spv1_3);
        // A command without -o or --target-env gets them like any other option.
        let mut rest = Vec::new();
        super::parse(args(&["-o", "--target-env"]), "", None, false, |_, n, _| {
            rest.push(n);
            Ok(())
        })
        .unwrap();
        assert_eq!(rest, vec!["-o".to_string(), "--target-env".to_string()]);
        let two = super::parse(args(&["a", "b"]), "", None, true, |_, n, _| Err(CliError::UnknownFlag(n)));
        assert!(matches!(two, Err(CliError::TooManyInputs)));
    }
}
