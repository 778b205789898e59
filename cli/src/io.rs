//! Inputs and outputs: files, or stdin / stdout for `-`.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::PathBuf;

use spvlab_core::analysis::Analysis;
use spvlab_core::valid::Options;

use crate::error::CliError;

/// Where input comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Stdin,
    File(PathBuf),
}

impl Input {
    /// `-` is stdin; anything else a path (`./-` is the file named `-`).
    pub fn from_arg(arg: &OsStr) -> Input {
        if arg == "-" { Input::Stdin } else { Input::File(PathBuf::from(arg)) }
    }

    /// The name used in messages.
    pub fn display_name(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".into(),
            Input::File(p) => p.display().to_string(),
        }
    }

    pub fn read(&self) -> Result<Vec<u8>, CliError> {
        let mut buf = Vec::new();
        let res = match self {
            Input::Stdin => std::io::stdin().lock().read_to_end(&mut buf).map(|_| ()),
            Input::File(p) => std::fs::read(p).map(|b| buf = b),
        };
        res.map_err(|err| CliError::Read { path: self.display_name(), err })?;
        Ok(buf)
    }
}

/// Read the input given (stdin when none was): its name for messages, and its bytes.
pub fn read_input(input: Option<Input>) -> Result<(String, Vec<u8>), CliError> {
    let input = input.unwrap_or(Input::Stdin);
    let bytes = input.read()?;
    Ok((input.display_name(), bytes))
}

/// Read the input given (stdin when none was) and analyse it for `opts`: its
/// name for messages, and the analysis.
pub fn analyze_input(input: Option<Input>, opts: &Options) -> Result<(String, Analysis), CliError> {
    let input = input.unwrap_or(Input::Stdin);
    let name = input.display_name();
    let bytes = input.read()?;
    Ok((name, analyze(&input, bytes, opts)?))
}

/// Print an analysis' diagnostics to stderr: the failure of a command that
/// needed a module and got none.
pub fn no_module(a: &Analysis, name: String) -> CliError {
    for d in a.diagnostics() {
        eprint!("{}", a.render(d, &name));
    }
    CliError::Failed { path: name, count: a.diagnostics().len() }
}

/// Whether an input is a binary module: a `.spv` file is, a `.spvasm` file is
/// not, and anything else is when it starts with the magic number (either
/// byte order).
pub fn is_binary(input: &Input, bytes: &[u8]) -> bool {
    let ext = match input {
        Input::File(p) => p.extension().and_then(|e| e.to_str()),
        Input::Stdin => None,
    };
    match ext {
        Some("spv") => true,
        Some("spvasm") => false,
        _ => spvlab_core::binary::starts_with_magic(bytes),
    }
}

/// The one analysis of an input: a binary as it is, anything else as assembly
/// text (assembled for `opts.env`); text that is not UTF-8 is an error.
pub fn analyze(input: &Input, bytes: Vec<u8>, opts: &Options) -> Result<Analysis, CliError> {
    if is_binary(input, &bytes) {
        return Ok(Analysis::of_bytes(&bytes, opts));
    }
    let text = utf8_text(bytes, &input.display_name())?;
    Ok(Analysis::of_text(&text, opts))
}

/// The input's bytes as text; not UTF-8 is an error naming the first bad byte.
pub fn utf8_text(bytes: Vec<u8>, path: &str) -> Result<String, CliError> {
    String::from_utf8(bytes)
        .map_err(|e| CliError::NotUtf8 { path: path.into(), offset: e.utf8_error().valid_up_to() })
}

/// Where output goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    Stdout,
    File(PathBuf),
}

impl Output {
    pub fn from_arg(arg: &OsStr) -> Output {
        if arg == "-" { Output::Stdout } else { Output::File(PathBuf::from(arg)) }
    }

    pub fn write(&self, bytes: &[u8]) -> Result<(), CliError> {
        match self {
            Output::Stdout => write_stdout(bytes),
            Output::File(p) => {
                std::fs::write(p, bytes).map_err(|err| CliError::Write { path: p.clone(), err })
            }
        }
    }
}

fn write_stdout(bytes: &[u8]) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`spvlab dis x.spv | head`) is not an error of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(err) => Err(CliError::Write { path: PathBuf::from("<stdout>"), err }),
    }
}

pub fn print_stdout(text: &str) -> Result<(), CliError> {
    write_stdout(text.as_bytes())
}
