//! Turns Vars into SSA values where that is plain: a Var with a single store that dominates
//! every load (in the tree's scoping), or a Var used only inside one block where every load
//! follows a store of that block.

use std::collections::{HashMap, HashSet};

use crate::ir::{Node, Op, Shader, Value, Var};
use crate::CompileError;

use super::substitute;

#[derive(Default)]
struct Uses {
    stores: Vec<(Vec<u32>, Value)>,
    loads: Vec<Vec<u32>>,
    /// Whether every load in the var's (single) block comes after a store in it.
    loads_after_store: bool,
}

/// Paths are pairs (node index, arm) down the tree, ending with (block index, inst index).
fn scan(nodes: &[Node], path: &mut Vec<u32>, uses: &mut HashMap<Var, Uses>) {
    for (k, n) in nodes.iter().enumerate() {
        match n {
            Node::Block(insts) => {
                let mut stored: HashSet<Var> = HashSet::new();
                for (j, i) in insts.iter().enumerate() {
                    path.push(k as u32);
                    path.push(j as u32);
                    match &i.op {
                        Op::StoreVar(v, x) => {
                            uses.entry(*v)
                                .or_insert_with(|| Uses {
                                    loads_after_store: true,
                                    ..Default::default()
                                })
                                .stores
                                .push((path.clone(), *x));
                            stored.insert(*v);
                        }
                        Op::LoadVar(v) => {
                            let u = uses.entry(*v).or_insert_with(|| Uses {
                                loads_after_store: true,
                                ..Default::default()
                            });
                            u.loads.push(path.clone());
                            if !stored.contains(v) {
                                u.loads_after_store = false;
                            }
                        }
                        _ => {}
                    }
                    path.truncate(path.len() - 2);
                }
            }
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                for (arm, body) in [then_body, else_body].into_iter().enumerate() {
                    path.push(k as u32);
                    path.push(arm as u32);
                    scan(body, path, uses);
                    path.truncate(path.len() - 2);
                }
            }
            Node::Loop { body } => {
                path.push(k as u32);
                path.push(0);
                scan(body, path, uses);
                path.truncate(path.len() - 2);
            }
            _ => {}
        }
    }
}

fn dominates(s: &[u32], l: &[u32]) -> bool {
    let n = s.len();
    if l.len() < n || l[..n - 2] != s[..n - 2] {
        return false;
    }
    l[n - 2] > s[n - 2] || (l[n - 2] == s[n - 2] && l.len() == n && l[n - 1] > s[n - 1])
}

fn same_block(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a[..a.len() - 1] == b[..b.len() - 1]
}

enum Plan {
    Single(Value),
    Local,
}

fn apply(nodes: &mut [Node], plan: &HashMap<Var, Plan>, subst: &mut HashMap<Value, Value>) {
    for n in nodes {
        match n {
            Node::Block(insts) => {
                let mut cur: HashMap<Var, Value> = HashMap::new();
                insts.retain(|i| match &i.op {
                    Op::StoreVar(v, x) if plan.contains_key(v) => {
                        cur.insert(*v, *x);
                        false
                    }
                    Op::LoadVar(v) => match (plan.get(v), i.dst) {
                        (Some(Plan::Single(x)), Some(d)) => {
                            subst.insert(d, *x);
                            false
                        }
                        (Some(Plan::Local), Some(d)) => {
                            if let Some(x) = cur.get(v) {
                                subst.insert(d, *x);
                            }
                            false
                        }
                        _ => true,
                    },
                    _ => true,
                });
            }
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                apply(then_body, plan, subst);
                apply(else_body, plan, subst);
            }
            Node::Loop { body } => apply(body, plan, subst),
            _ => {}
        }
    }
}

pub fn promote_vars(sh: &mut Shader) -> Result<(), CompileError> {
    let mut uses = HashMap::new();
    scan(&sh.body, &mut Vec::new(), &mut uses);
    let mut plan = HashMap::new();
    for (v, u) in &uses {
        if u.loads.is_empty() {
            continue;
        }
        if let [(s, x)] = u.stores.as_slice() {
            if u.loads.iter().all(|l| dominates(s, l)) {
                plan.insert(*v, Plan::Single(*x));
                continue;
            }
        }
        let first = u
            .stores
            .first()
            .map(|(p, _)| p.clone())
            .or_else(|| u.loads.first().cloned());
        if let Some(f) = first {
            let all_local = u.stores.iter().all(|(p, _)| same_block(p, &f))
                && u.loads.iter().all(|p| same_block(p, &f));
            if all_local && u.loads_after_store {
                plan.insert(*v, Plan::Local);
            }
        }
    }
    let mut subst = HashMap::new();
    apply(&mut sh.body, &plan, &mut subst);
    substitute(&mut sh.body, &subst);
    Ok(())
}
