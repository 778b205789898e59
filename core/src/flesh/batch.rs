//! Many fleshed programs in one module and one dispatch, so that a GPU
//! backend compiles and dispatches once for all of them.
//!
//! Program k is the function `%p<k>_main` (its ids prefixed `p<k>_`); the
//! entry point `main` reads its workgroup id and calls program k in
//! workgroup k, so the batch runs as `count` workgroups of the largest
//! program's invocations (an invocation past a program's own count calls
//! nothing). Program k's directions and output start at its own offsets in
//! the shared `directions` and `output` buffers, so the batch's expected
//! output is its programs' expected outputs side by side, and program k's
//! actual output is the same slice of the batch's.

use super::program::{Fleshed, Mode, Options, Preamble, Writer, u32_list};
use super::skeleton::Skeleton;
use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;
use core::ops::Range;

/// One program of a batch: its skeleton, its fleshing options and the
/// program fleshed from them.
#[derive(Clone, Copy)]
pub struct Member<'a> {
    pub skeleton: &'a Skeleton,
    pub opts: &'a Options,
    pub program: &'a Fleshed,
}

/// A batch's module, inputs and oracle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Batch {
    /// The module, as SPIR-V assembly (for SPIR-V 1.4 and later).
    pub text: String,
    /// Workgroups in x: one per program.
    pub workgroups: u32,
    /// The directions buffer (binding 0.0), the programs' side by side.
    pub directions: Vec<u32>,
    /// What the output buffer (binding 0.1, zeros before) must hold after
    /// the run: the programs' expected outputs side by side.
    pub expected: Vec<u32>,
    /// Per program, its words of `output`.
    pub outputs: Vec<Range<usize>>,
}

impl Batch {
    /// The run's buffer inputs (`u32: ...`): the directions at 0.0.
    pub fn buffer_inputs(&self) -> Vec<(crate::plan::Slot, String)> {
        alloc::vec![(crate::plan::Slot::Binding(0, 0), u32_list(&self.directions))]
    }

    /// The programs whose slice of `actual` (a run's output buffer) differs
    /// from their expected output, by index.
    pub fn wrong(&self, actual: &[u32]) -> Vec<usize> {
        let empty: &[u32] = &[];
        (0..self.outputs.len())
            .filter(|&k| {
                let r = self.outputs[k].clone();
                actual.get(r.clone()).unwrap_or(empty) != &self.expected[r]
            })
            .collect()
    }
}

/// The batch of `members` (at least one).
pub fn batch(members: &[Member]) -> Batch {
    let invocations = members.iter().map(|m| m.program.invocations()).max().unwrap_or(1).max(1);
    let (mut directions, mut expected, mut outputs) = (Vec::new(), Vec::new(), Vec::new());
    let mut writers = Vec::new();
    let prefixes: Vec<String> = (0..members.len()).map(|k| alloc::format!("p{k}_")).collect();
    for (m, prefix) in members.iter().zip(&prefixes) {
        let f = m.program;
        let (dir_base, out_base) = (directions.len() as u32, expected.len() as u32);
        directions.extend_from_slice(&f.directions);
        outputs.push(expected.len()..expected.len() + f.expected.len());
        expected.extend_from_slice(&f.expected);
        writers.push(Writer { s: m.skeleton, f, opts: m.opts, prefix, dir_base, out_base });
    }
    // A batch binds `directions` even where no program reads it.
    if directions.is_empty() {
        directions.push(0);
    }
    let mut consts: BTreeSet<u32> = writers.iter().flat_map(Writer::constants).collect();
    let counts: BTreeSet<u32> = members.iter().map(|m| m.program.invocations()).filter(|&c| c < invocations).collect();
    consts.extend(&counts);
    let mut t = String::new();
    let _ = writeln!(
        t,
        "; {} fleshed programs in one dispatch: program k is %pk_main, called in workgroup k; its directions and \
         output lie at its own offsets in the shared buffers.",
        members.len()
    );
    Preamble {
        invocations,
        dir_len: directions.len() as u32,
        out_len: expected.len().max(1) as u32,
        consts,
        variables: members.iter().any(|m| m.program.mode != Mode::Phi),
        invocation: members.iter().any(|m| m.program.mode == Mode::Multi) || !counts.is_empty(),
        workgroup: true,
        names: None,
    }
    .write(&mut t);
    for (k, w) in writers.iter().enumerate() {
        w.function(&mut t, &alloc::format!("p{k}_main"));
    }
    t.push_str("%main = OpFunction %void None %fn\n%entry = OpLabel\n");
    t.push_str("%wg = OpLoad %v3uint %workgroup\n%wg_x = OpCompositeExtract %uint %wg 0\n");
    if !counts.is_empty() {
        t.push_str("%local = OpLoad %uint %invocation\n");
    }
    t.push_str("OpSelectionMerge %done None\nOpSwitch %wg_x %done");
    for k in 0..members.len() {
        let _ = write!(t, " {k} %call{k}");
    }
    t.push('\n');
    for (k, m) in members.iter().enumerate() {
        let count = m.program.invocations();
        if count < invocations {
            // Only the program's own invocations run it.
            let _ = writeln!(
                t,
                "%call{k} = OpLabel\n%call{k}_in = OpULessThan %bool %local %uint_{count}\n\
                 OpSelectionMerge %call{k}_end None\nOpBranchConditional %call{k}_in %call{k}_run %call{k}_end\n\
                 %call{k}_run = OpLabel\n%call{k}_r = OpFunctionCall %void %p{k}_main\nOpBranch %call{k}_end\n\
                 %call{k}_end = OpLabel\nOpBranch %done"
            );
        } else {
            let _ = writeln!(t, "%call{k} = OpLabel\n%call{k}_r = OpFunctionCall %void %p{k}_main\nOpBranch %done");
        }
    }
    t.push_str("%done = OpLabel\nOpReturn\nOpFunctionEnd\n");
    Batch { text: t, workgroups: members.len() as u32, directions, expected, outputs }
}
