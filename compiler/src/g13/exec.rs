//! Structured control flow to exec-mask instructions.
//!
//! Every thread keeps a nesting counter in `r0l` and is active while it is zero (the model
//! Mesa's agx_compile and applegpu describe). The shapes emitted:
//!
//! ```text
//! if c:     if_icmp c != 0, n=1; jmp_exec_none ELSE
//!           <then>
//!   ELSE:   else_fcmp 0.0 == 0.0, n=1; jmp_exec_none END     (omitted with no else arm)
//!           <else>
//!   END:    pop_exec 1
//!
//! loop:     [if_fcmp 0.0 == 0.0, n=L]     only when some thread may already be inactive
//!   HEAD:   <body>
//!           [while_icmp 0 == 0, n=2]       only when the body continues
//!           jmp_exec_any HEAD
//!           pop_exec L                     L = 2 with continues, else 1
//! ```
//!
//! `break` and `continue` set the counter directly to the number of levels they leave (the
//! `if`s between them and their loop, plus the loop's own 1 or 2 levels; a continue leaves
//! only one loop level so the `while` at the bottom reactivates it) and refresh the mask with
//! `pop_exec 0`. A `return` at the top level is `stop`: every thread still running is active
//! there. A `return` inside control flow parks the thread at [`RETURN_NEST`]: the pops on the
//! way out never bring that back to zero, `while` only touches counters below 2 and `else`
//! only 0 and 1, so the thread stays off until the shader ends. After such a return even a
//! top-level loop pushes, so its breaks cannot wake parked threads.
//!
//! A per-sample fragment shader runs its whole body in one more loop, once per sample. There
//! a `return` ends only the current sample: it is that loop's `continue`, however deeply it
//! sits, so the thread comes back for the next sample. Without `return`s it is the shortest
//! loop: one level, the sample count tested by the `while` at its bottom.

use hw::isa::*;

use super::{Item, R0L};
use crate::ir::Node;

/// Counter value of a thread that returned from inside control flow. Far above any nesting
/// depth a shader reaches, far below 16-bit overflow.
pub(crate) const RETURN_NEST: u32 = 0x4000;

/// How a list of nodes leaves early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JumpKind {
    Break,
    Continue,
    Return,
}

/// Which threads a branch takes (enter an `if`, leave a loop): those where
/// `cond(a, b) != invert`. `if` and `while` compare their two sources themselves, so a
/// comparison feeding only a branch needs no instruction of its own.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Test {
    pub cond: Cond,
    pub a: Operand,
    pub b: Operand,
    pub invert: bool,
}

impl Test {
    /// The threads whose boolean register `c` is nonzero (zero with `when_zero`).
    pub fn nonzero(c: Operand, when_zero: bool) -> Test {
        Test {
            cond: Cond::Int(ICond::UEq),
            a: c,
            b: Operand::Imm(0),
            invert: !when_zero,
        }
    }
}

/// Open `if`: the labels its instructions branch to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct IfFrame {
    else_label: u32,
    end_label: u32,
    has_else: bool,
}

/// Open loop: what to restore when it closes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LoopFrame {
    head: u32,
    levels: u8,
    outer_loop_nesting: u32,
    outer_continues: bool,
}

#[derive(Debug, Default)]
pub(crate) struct ExecLowering {
    /// `if`s entered since the innermost loop began.
    loop_nesting: u32,
    /// `if`s and loops entered in all.
    total_nesting: u32,
    /// Whether the innermost loop uses `continue` (it then takes two levels).
    loop_continues: bool,
    /// Whether a thread may have returned from inside control flow already.
    any_return: bool,
    next_label: u32,
    /// Counter levels the open `if`s and loops hold in all.
    levels: u32,
    /// Inside a per-sample loop: `levels` just inside it. A `return` there ends the sample's
    /// iteration rather than the thread, which must go on to shade its other samples.
    sample_loop: Option<u32>,
}

fn unconditional(op: ExecOp, n: u8) -> Instr {
    Instr::ExecCmp(ExecCmp {
        op,
        cond: Cond::Float(FCond::Eq),
        invert: false,
        a: Operand::Imm(0),
        b: Operand::Imm(0),
        n,
    })
}

impl ExecLowering {
    /// Starts a program: zeroes the counter if the body has any control flow, or if
    /// `more` (code after the body has some).
    pub fn begin(&mut self, body: &[Node], more: bool, out: &mut Vec<Item>) {
        if more || body.iter().any(has_control_flow) {
            out.push(Item::Op(Instr::MovImm(MovImm {
                dst: R0L.into(),
                imm: 0,
            })));
        }
    }

    /// Opens the loop a per-sample fragment shader runs its body in, once per sample. With
    /// `returns` it takes the two levels of a loop with `continue`, as a `return` in the body
    /// becomes one; without, one level, and the loop tests its count at the bottom
    /// ([`Self::sample_loop_while`]).
    pub fn sample_loop_begin(&mut self, returns: bool, out: &mut Vec<Item>) -> LoopFrame {
        out.push(Item::Op(Instr::MovImm(MovImm {
            dst: R0L.into(),
            imm: 0,
        })));
        let levels = if returns { 2 } else { 1 };
        let frame = LoopFrame {
            head: self.label(),
            levels,
            outer_loop_nesting: self.loop_nesting,
            outer_continues: self.loop_continues,
        };
        self.loop_nesting = 0;
        self.loop_continues = returns;
        self.total_nesting += 1;
        self.levels += u32::from(levels);
        self.sample_loop = Some(self.levels);
        out.push(Item::Label(frame.head));
        frame
    }

    /// The bottom test of a per-sample loop without `return`s: every thread is active here,
    /// so all of them stay for another sample where `a` `cond` `b` holds (unsigned integers).
    pub fn sample_loop_while(&mut self, cond: ICond, a: Operand, b: Operand, out: &mut Vec<Item>) {
        debug_assert!(!self.loop_continues && self.loop_nesting == 0);
        out.push(Item::Op(Instr::ExecCmp(ExecCmp {
            op: ExecOp::While,
            cond: Cond::Int(cond),
            invert: false,
            a,
            b,
            n: 1,
        })));
    }

    /// Leaves the per-sample loop where `a` `cond` `b` holds (unsigned integers).
    pub fn sample_loop_exit_if(
        &mut self,
        cond: ICond,
        a: Operand,
        b: Operand,
        out: &mut Vec<Item>,
    ) {
        let end = self.label();
        out.push(Item::Op(Instr::ExecCmp(ExecCmp {
            op: ExecOp::If,
            cond: Cond::Int(cond),
            invert: false,
            a,
            b,
            n: 1,
        })));
        out.push(Item::Jump {
            cond: JumpCond::None,
            target: end,
        });
        // One `if` level, then the loop's two.
        out.push(Item::Op(Instr::MovImm(MovImm {
            dst: R0L.into(),
            imm: 3,
        })));
        out.push(Item::Op(Instr::PopExec(PopExec { n: 0 })));
        out.push(Item::Label(end));
        out.push(Item::Op(Instr::PopExec(PopExec { n: 1 })));
    }

    pub fn sample_loop_end(&mut self, frame: LoopFrame, out: &mut Vec<Item>) {
        self.sample_loop = None;
        self.loop_end(frame, out);
    }

    fn label(&mut self) -> u32 {
        self.next_label += 1;
        self.next_label - 1
    }

    /// `cond` is a 16-bit boolean (0 or 1) operand; the `then` arm runs where it is 1, or
    /// where it is 0 with `when_zero`.
    pub fn if_begin(&mut self, test: Test, has_else: bool, out: &mut Vec<Item>) -> IfFrame {
        let frame = IfFrame {
            else_label: self.label(),
            end_label: self.label(),
            has_else,
        };
        out.push(Item::Op(Instr::ExecCmp(ExecCmp {
            op: ExecOp::If,
            cond: test.cond,
            invert: test.invert,
            a: test.a,
            b: test.b,
            n: 1,
        })));
        let skip = if has_else {
            frame.else_label
        } else {
            frame.end_label
        };
        out.push(Item::Jump {
            cond: JumpCond::None,
            target: skip,
        });
        self.loop_nesting += 1;
        self.total_nesting += 1;
        self.levels += 1;
        frame
    }

    pub fn if_else(&mut self, frame: &IfFrame, out: &mut Vec<Item>) {
        debug_assert!(frame.has_else);
        out.push(Item::Label(frame.else_label));
        out.push(Item::Op(unconditional(ExecOp::Else, 1)));
        out.push(Item::Jump {
            cond: JumpCond::None,
            target: frame.end_label,
        });
    }

    pub fn if_end(&mut self, frame: IfFrame, out: &mut Vec<Item>) {
        out.push(Item::Label(frame.end_label));
        out.push(Item::Op(Instr::PopExec(PopExec { n: 1 })));
        self.loop_nesting -= 1;
        self.total_nesting -= 1;
        self.levels -= 1;
    }

    pub fn loop_begin(&mut self, body: &[Node], out: &mut Vec<Item>) -> LoopFrame {
        let continues = body.iter().any(continues_loop);
        let levels = if continues { 2 } else { 1 };
        if self.total_nesting > 0 || self.any_return {
            out.push(Item::Op(unconditional(ExecOp::If, levels)));
        }
        let frame = LoopFrame {
            head: self.label(),
            levels,
            outer_loop_nesting: self.loop_nesting,
            outer_continues: self.loop_continues,
        };
        self.loop_nesting = 0;
        self.loop_continues = continues;
        self.total_nesting += 1;
        self.levels += u32::from(levels);
        out.push(Item::Label(frame.head));
        frame
    }

    pub fn loop_end(&mut self, frame: LoopFrame, out: &mut Vec<Item>) {
        if self.loop_continues {
            out.push(Item::Op(Instr::ExecCmp(ExecCmp {
                op: ExecOp::While,
                cond: Cond::Int(ICond::UEq),
                invert: false,
                a: Operand::Imm(0),
                b: Operand::Imm(0),
                n: 2,
            })));
        }
        out.push(Item::Jump {
            cond: JumpCond::Any,
            target: frame.head,
        });
        out.push(Item::Op(Instr::PopExec(PopExec { n: frame.levels })));
        self.loop_nesting = frame.outer_loop_nesting;
        self.loop_continues = frame.outer_continues;
        self.total_nesting -= 1;
        self.levels -= u32::from(frame.levels);
    }

    /// Whether a conditional `break` here can be one `while`: directly in the body of a loop
    /// without `continue`, every thread with a counter below 1 is an active one.
    pub fn can_break_in_place(&self) -> bool {
        self.loop_nesting == 0 && !self.loop_continues && self.total_nesting > 0
    }

    /// `if (test) break` as a single `while`: threads that stay get counter 0, threads that
    /// leave get 1, the level `pop_exec` at the loop's end takes off, just as `break`'s
    /// counter write and that pop would.
    pub fn break_if(&mut self, test: Test, out: &mut Vec<Item>) {
        debug_assert!(self.can_break_in_place());
        out.push(Item::Op(Instr::ExecCmp(ExecCmp {
            op: ExecOp::While,
            cond: test.cond,
            // `while` keeps threads whose condition holds: those the test does not take.
            invert: !test.invert,
            a: test.a,
            b: test.b,
            n: 1,
        })));
    }

    pub fn jump(&mut self, kind: JumpKind, out: &mut Vec<Item>) -> Result<(), crate::CompileError> {
        let nest = match kind {
            // Like a `continue` of the per-sample loop from however deep the body is: every
            // level opened inside it, then the one the `while` at its bottom takes off.
            JumpKind::Return if self.sample_loop.is_some() => {
                self.levels - self.sample_loop.unwrap_or(0) + 1
            }
            JumpKind::Return if self.total_nesting == 0 => {
                out.push(Item::Op(Instr::Stop));
                return Ok(());
            }
            JumpKind::Return => {
                self.any_return = true;
                RETURN_NEST
            }
            JumpKind::Break => self.loop_nesting + if self.loop_continues { 2 } else { 1 },
            JumpKind::Continue => self.loop_nesting + 1,
        };
        if nest > 0xffff {
            return Err(crate::CompileError::Limit(
                "control flow nested too deeply".into(),
            ));
        }
        out.push(Item::Op(Instr::MovImm(MovImm {
            dst: R0L.into(),
            imm: nest,
        })));
        out.push(Item::Op(Instr::PopExec(PopExec { n: 0 })));
        Ok(())
    }
}

fn has_control_flow(n: &Node) -> bool {
    matches!(n, Node::If { .. } | Node::Loop { .. })
}

/// Whether `n` contains a `continue` of the loop it sits in (not of a nested loop).
fn continues_loop(n: &Node) -> bool {
    match n {
        Node::Continue => true,
        Node::If {
            then_body,
            else_body,
            ..
        } => then_body.iter().any(continues_loop) || else_body.iter().any(continues_loop),
        _ => false,
    }
}
