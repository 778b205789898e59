#!/usr/bin/env python3
"""Writes the deep_*.spvasm modules of this folder: control flow nested
deeper than WGSL's limit of 127 brace-enclosed statements, which our
lowering flattens with guard flags.
Run from this folder: python3 deep.py. The modules are checked in; this
script says how they were made (and makes them again when it changes)."""

HEAD = """; {comment}
; One workgroup of 8 invocations; invocation x writes its result to out[x]. Written by deep.py.
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpExecutionMode %main LocalSize 8 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %rta ArrayStride 4
               OpDecorate %Buf Block
               OpMemberDecorate %Buf 0 Offset 0
               OpDecorate %buf DescriptorSet 0
               OpDecorate %buf Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
     %fn_u_u = OpTypeFunction %uint %uint
     %v3uint = OpTypeVector %uint 3
      %p_gid = OpTypePointer Input %v3uint
        %gid = OpVariable %p_gid Input
        %rta = OpTypeRuntimeArray %uint
        %Buf = OpTypeStruct %rta
      %p_Buf = OpTypePointer StorageBuffer %Buf
     %p_uint = OpTypePointer StorageBuffer %uint
     %f_uint = OpTypePointer Function %uint
        %buf = OpVariable %p_Buf StorageBuffer
"""


class M:
    def __init__(self):
        self.consts = set()
        self.body = []
        self.n = 0

    def c(self, v):
        self.consts.add(v)
        return f"%k{v}"

    def fresh(self, p="t"):
        self.n += 1
        return f"%{p}{self.n}"

    def op(self, s):
        self.body.append("               " + s)

    def label(self, name):
        self.body.append(f"{name:>11} = OpLabel")

    def let(self, name, s):
        self.body.append(f"{name:>11} = {s}")

    def step(self, acc, mul, add):
        """acc = acc * mul + add"""
        a, b, d = self.fresh(), self.fresh(), self.fresh()
        self.let(a, f"OpLoad %uint {acc}")
        self.let(b, f"OpIMul %uint {a} {self.c(mul)}")
        self.let(d, f"OpIAdd %uint {b} {self.c(add)}")
        self.op(f"OpStore {acc} {d}")

    def cond_ne(self, x, k, mod, bad):
        """(x * k) % mod != bad, from x and a level k."""
        a, b, d = self.fresh(), self.fresh(), self.fresh("c")
        self.let(a, f"OpIMul %uint {x} {self.c(k)}")
        self.let(b, f"OpUMod %uint {a} {self.c(mod)}")
        self.let(d, f"OpINotEqual %bool {b} {self.c(bad)}")
        return d

    def text(self, comment, extra_types=""):
        consts = "".join(f"{'%k' + str(v):>11} = OpConstant %uint {v}\n" for v in sorted(self.consts))
        return HEAD.format(comment=comment) + consts + extra_types + "\n".join(self.body) + "\n"


def chain(m, n, x, acc, exit_merge, level_exit=None, inner=None):
    """A chain of n nested selections, branched to from the current block; it
    ends by branching to exit_merge. level_exit(k, e) may write a different
    ending for the else arm of level k (it must end in a branch to e's merge
    or out); inner() writes the innermost code (ending in a branch to the
    last merge)."""
    tag = m.fresh("q")[1:]
    m.op(f"OpBranch %h0_{tag}")
    for k in range(n):
        m.label(f"%h{k}_{tag}")
        m.step(acc, 3, k + 1)
        c = m.cond_ne(x, k + 1, 37 + k % 5, 36 + k % 5)
        m.op(f"OpSelectionMerge %m{k}_{tag} None")
        m.op(f"OpBranchConditional {c} %h{k + 1}_{tag} %e{k}_{tag}")
        m.label(f"%e{k}_{tag}")
        m.step(acc, 5, 1000 + k)
        if level_exit is not None and level_exit(k, f"%m{k}_{tag}"):
            pass
        else:
            m.op(f"OpBranch %m{k}_{tag}")
    m.label(f"%h{n}_{tag}")
    m.step(acc, 7, 77)
    if inner is not None:
        inner(f"%m{n - 1}_{tag}")
    else:
        m.op(f"OpBranch %m{n - 1}_{tag}")
    for k in reversed(range(n)):
        m.label(f"%m{k}_{tag}")
        m.step(acc, 11, 3 * k)
        m.op(f"OpBranch {exit_merge if k == 0 else f'%m{k - 1}_{tag}'}")


def prologue(m):
    m.let("%main", "OpFunction %void None %fn")
    m.label("%entry")
    m.let("%acc", "OpVariable %f_uint Function")
    m.let("%g", "OpLoad %v3uint %gid")
    m.let("%x", "OpCompositeExtract %uint %g 0")
    m.let("%out", f"OpAccessChain %p_uint %buf {m.c(0)} %x")
    m.op(f"OpStore %acc %x")


def epilogue(m, label):
    m.label(label)
    m.let("%res", "OpLoad %uint %acc")
    m.op("OpStore %out %res")
    m.op("OpReturn")
    m.op("OpFunctionEnd")


def loop_open(m, count):
    """A loop of count iterations on %i, merging at %lm, continuing at %cont
    (written by loop_close); its body goes on in the current block."""
    m.op("OpBranch %lh")
    m.label("%lh")
    m.let("%i", f"OpPhi %uint {m.c(0)} %entry %i1 %cont")
    m.let("%lt", f"OpULessThan %bool %i {m.c(count)}")
    m.op("OpLoopMerge %lm %cont None")
    m.op("OpBranchConditional %lt %go %lm")
    m.label("%go")


def loop_close(m):
    m.label("%cont")
    m.let("%i1", f"OpIAdd %uint %i {m.c(1)}")
    m.op("OpBranch %lh")


def deep_if_chain(n):
    m = M()
    prologue(m)
    # The entry block branches into the chain.
    chain(m, n, "%x", "%acc", "%done")
    epilogue(m, "%done")
    return m.text(f"{n} nested selections (deeper than WGSL's 127 braces), code before and after each, else arms; each invocation leaves the chain at another depth, invocation 0 at the bottom.")


def exits_every(every, kind_target, m, x):
    def f(k, merge):
        if k % every != every - 1:
            return False
        d = m.fresh("d")
        a = m.fresh()
        m.let(a, f"OpBitwiseAnd %uint {x} {m.c(1)}")
        m.let(d, f"OpIEqual %bool {a} {m.c(0)}")
        em = m.fresh("em")
        m.op(f"OpSelectionMerge {em} None")
        m.op(f"OpBranchConditional {d} {kind_target} {em}")
        m.label(em)
        m.op(f"OpBranch {merge}")
        return True
    return f


def deep_if_in_loop(n):
    m = M()
    prologue(m)
    loop_open(m, 3)
    m.let("%xi", "OpIAdd %uint %x %i")

    def inner(merge):
        # From the bottom: continue for odd x + i, else go up.
        a, d, em = m.fresh(), m.fresh("d"), m.fresh("em")
        m.let(a, f"OpBitwiseAnd %uint %xi {m.c(1)}")
        m.let(d, f"OpIEqual %bool {a} {m.c(1)}")
        m.op(f"OpSelectionMerge {em} None")
        m.op(f"OpBranchConditional {d} %cont {em}")
        m.label(em)
        m.op(f"OpBranch {merge}")

    chain(m, n, "%xi", "%acc", "%cont", exits_every(29, "%lm", m, "%xi"), inner)
    loop_close(m)
    epilogue(m, "%lm")
    return m.text(f"a loop around {n} nested selections, with breaks out of the loop from several depths and a continue from the innermost one.")


def deep_if_in_switch(n):
    m = M()
    prologue(m)
    m.let("%sel", f"OpUMod %uint %x {m.c(3)}")
    m.op("OpSelectionMerge %sm None")
    m.op("OpSwitch %sel %dflt 0 %case0 1 %case1")
    m.label("%case0")
    chain(m, n, "%x", "%acc", "%sm", exits_every(31, "%sm", m, "%x"))
    m.label("%case1")
    m.step("%acc", 13, 1)
    m.op("OpBranch %sm")
    m.label("%dflt")
    chain(m, n, "%x", "%acc", "%sm", exits_every(23, "%sm", m, "%x"))
    epilogue(m, "%sm")
    return m.text(f"a switch whose cases hold {n} nested selections each, with breaks out of the switch from several depths.")


def deep_if_return(n):
    m = M()
    prologue(m)
    m.op("OpBranch %top")
    m.label("%top")

    def ret(k, merge):
        if k % 17 != 16:
            return False
        d, a, em = m.fresh("d"), m.fresh(), m.fresh("em")
        m.let(a, f"OpBitwiseAnd %uint %x {m.c(2)}")
        m.let(d, f"OpIEqual %bool {a} {m.c(0)}")
        m.op(f"OpSelectionMerge {em} None")
        m.op(f"OpBranchConditional {d} {em} %early{k}")
        m.label(f"%early{k}")
        v = m.fresh()
        m.let(v, "OpLoad %uint %acc")
        m.op(f"OpStore %out {v}")
        m.op("OpReturn")
        m.label(em)
        m.op(f"OpBranch {merge}")
        return True

    chain(m, n, "%x", "%acc", "%done", ret)
    epilogue(m, "%done")
    return m.text(f"{n} nested selections with early returns from several depths.")


def deep_barrier(n):
    m = M()
    prologue(m)
    loop_open(m, 2)

    def inner(merge):
        m.op(f"OpControlBarrier {m.c(2)} {m.c(2)} {m.c(264)}")
        m.op(f"OpBranch {merge}")

    # Conditions on the loop counter only: uniform across the workgroup.
    chain(m, n, "%i", "%acc", "%cont", None, inner)
    loop_close(m)
    epilogue(m, "%lm")
    return m.text(f"a workgroup barrier under {n} nested selections on uniform conditions (a loop counter), in a loop.")


if __name__ == "__main__":
    for name, text in [
        ("deep_if_chain", deep_if_chain(150)),
        ("deep_if_in_loop_break_continue", deep_if_in_loop(140)),
        ("deep_if_in_switch_break", deep_if_in_switch(135)),
        ("deep_if_return", deep_if_return(140)),
        ("deep_if_barrier_uniform", deep_barrier(130)),
    ]:
        with open(f"{name}.spvasm", "w") as f:
            f.write(text)
