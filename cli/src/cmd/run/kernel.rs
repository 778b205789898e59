//! `spvlab run` on an OpenCL Kernel entry point: the plan binds its
//! parameters in order, parameter k at binding 0.k (`--buffer 0.k=SPEC`).
//! After the run each pointer parameter's buffer is printed by its pointee
//! type.

use serde_json::json;
use spvlab_core::interp;
use spvlab_core::plan::Plan;

use super::{located, shown, shown_json, shown_text};
use crate::error::CliError;
use crate::io::Output;

pub(super) fn run(a: &spvlab_core::analysis::Analysis, plan: &Plan, path: String, json_out: bool, output: Output) -> Result<(), CliError> {
    let mut bufs = plan.buffers.clone();
    let stats = match interp::run(&plan.ir, &plan.options, &mut bufs) {
        Ok(s) => s,
        Err(err) => {
            eprint!("{}", located(a, &path, &err));
            return Err(CliError::Failed { path, count: 1 });
        }
    };
    let shown = shown(plan, &bufs);
    if json_out {
        let v = json!({
            "entryPoint": plan.entry.name, "workgroups": plan.options.workgroups,
            "invocations": stats.invocations, "steps": stats.steps, "buffers": shown_json(&shown, &bufs),
        });
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
        s.push('\n');
        return output.write(s.as_bytes());
    }
    output.write(shown_text(&shown, &bufs).as_bytes())
}
