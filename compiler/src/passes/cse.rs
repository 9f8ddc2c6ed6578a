//! Common subexpression elimination over the tree's scopes: an operation without effects that
//! repeats one visible earlier (same operation, same operands, same type) reuses its value.
//! Root loads count as pure: the root table does not change during a dispatch. So do loads
//! of descriptor words (device loads at a set address from the root table plus an offset):
//! Vulkan forbids updating a descriptor set while a dispatch uses it.

use std::collections::{HashMap, HashSet};

use crate::ir::{
    has_side_effects, BinOp, Node, Op, Shader, Space, SysVal, TexOp, Type, Value, Var,
};
use crate::CompileError;

use super::{map_operands, substitute};

fn pure(op: &Op, descriptor_words: &HashSet<Value>) -> bool {
    match op {
        // An image write between two storage image reads changes what they read.
        Op::Texture(t) => t.op != TexOp::ImageRead,
        Op::Load {
            space: Space::Global,
            addr,
            ..
        } => descriptor_words.contains(addr),
        Op::Load { space, .. } => *space == Space::Root,
        Op::LoadVar(_)
        | Op::StoreVar(..)
        | Op::Store { .. }
        | Op::Atomic { .. }
        | Op::WorkgroupBarrier
        | Op::MemoryBarrier
        | Op::StoreOutput { .. }
        | Op::StoreBuiltin { .. }
        | Op::Discard
        | Op::ImageStore(_)
        | Op::ImageAtomic(_)
        // Their result depends on which invocations are active where they run.
        | Op::Ballot(_)
        | Op::LaneRead(..)
        | Op::Reduce(..)
        // A `Discard` between two reads changes it.
        | Op::SysVal(SysVal::HelperInvocation) => false,
        _ => true,
    }
}

struct Cse {
    descriptor_words: HashSet<Value>,
    table: HashMap<(String, Type), Value>,
    subst: HashMap<Value, Value>,
}

impl Cse {
    fn list(&mut self, sh: &Shader, nodes: &mut [Node]) {
        let mut added = Vec::new();
        for n in nodes.iter_mut() {
            match n {
                Node::Block(insts) => {
                    // Inside a block Vars behave like memory with no one else writing it: a
                    // load after a store or load of the same Var reuses that value.
                    let mut known: HashMap<Var, Value> = HashMap::new();
                    // Likewise memory between writes: a second load of an address since the
                    // last write anywhere (this invocation's stores, atomics, barriers) reads
                    // what the first did, as far as a program without data races can tell.
                    let mut loaded: HashMap<(Space, Value, Type), Value> = HashMap::new();
                    insts.retain_mut(|i| {
                        let subst = &self.subst;
                        map_operands(&mut i.op, &mut |v| *subst.get(&v).unwrap_or(&v));
                        match (&i.op, i.dst) {
                            (Op::StoreVar(var, x), _) => {
                                known.insert(*var, *x);
                                return true;
                            }
                            (Op::LoadVar(var), Some(d)) => {
                                if let Some(x) = known.get(var) {
                                    self.subst.insert(d, *x);
                                    return false;
                                }
                                known.insert(*var, d);
                                return true;
                            }
                            (Op::Load { space, addr, .. }, Some(d))
                                if *space != Space::Root
                                    && !pure(&i.op, &self.descriptor_words) =>
                            {
                                let key = (*space, *addr, sh.ty(d));
                                if let Some(x) = loaded.get(&key) {
                                    self.subst.insert(d, *x);
                                    return false;
                                }
                                loaded.insert(key, d);
                                return true;
                            }
                            (op, _) if has_side_effects(op) => loaded.clear(),
                            _ => {}
                        }
                        let Some(d) = i.dst else { return true };
                        if !pure(&i.op, &self.descriptor_words) {
                            return true;
                        }
                        let key = (format!("{:?}", i.op), sh.ty(d));
                        match self.table.get(&key) {
                            Some(prev) => {
                                self.subst.insert(d, *prev);
                                false
                            }
                            None => {
                                self.table.insert(key.clone(), d);
                                added.push(key);
                                true
                            }
                        }
                    });
                }
                Node::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    *cond = *self.subst.get(cond).unwrap_or(cond);
                    self.list(sh, then_body);
                    self.list(sh, else_body);
                }
                Node::Loop { body } => self.list(sh, body),
                _ => {}
            }
        }
        for k in added {
            self.table.remove(&k);
        }
    }
}

pub fn cse(sh: &mut Shader) -> Result<(), CompileError> {
    let d = super::defs(sh);
    let descriptor_words = d
        .iter()
        .filter(|(v, op)| match op {
            Op::Binary(BinOp::IAdd, base, _) => matches!(
                d.get(base),
                Some(Op::Load {
                    space: Space::Root,
                    ..
                })
            ),
            // A set address itself (descriptor 0 of the set, offset folded away).
            Op::Load {
                space: Space::Root, ..
            } => sh.ty(**v) == Type::I64,
            _ => false,
        })
        .map(|(v, _)| *v)
        .collect();
    let mut c = Cse {
        descriptor_words,
        table: HashMap::new(),
        subst: HashMap::new(),
    };
    let mut body = std::mem::take(&mut sh.body);
    c.list(sh, &mut body);
    // Uses inside nested lists seen before a later replacement are already rewritten; this
    // catches any left over.
    substitute(&mut body, &c.subst);
    sh.body = body;
    Ok(())
}
