//! Structured control flow.
//!
//! A uniform `If`/`Loop` (the whole warp goes one way) is a branch on a uniform register.
//! A divergent one runs both arms, or every iteration some lane needs, under EXEC masks
//! (seed 001 §3.2):
//!
//! ```text
//!     saveexec.and   s, m        // s = EXEC; EXEC &= m            (then-lanes)
//!     bexecz         .Lelse      // skipped when no lane takes it
//!     <then>                      // results merged into r (EXEC-masked writes)
//! .Lelse:
//!     saveexec.andn1 t, s        // EXEC = s & ~EXEC               (else-lanes)
//!     bexecz         .Ljoin
//!     <else>                      // results merged into r
//! .Ljoin:
//!     exec.set       s
//! ```
//!
//! Results of divergent regions live in one register that each arm writes only in its own
//! lanes: each merge is an instruction whose destination is *tied* to the previous value
//! ([`MOp::Tied`]), so the register allocator keeps one register through both arms and
//! never reuses it for anything else while other lanes still need it. A divergent loop
//! keeps each used result in such an accumulator across the whole loop, so lanes that leave
//! early keep the value of their last iteration; the loop continues while any lane does.

use super::bank::Bank;
use super::Isel;
use crate::backend::mir::{BlockId, MKind, MOp, RClass, VReg};
use crate::ir::{OpId, OpKind, Ty, ValueId};

impl Isel<'_> {
    pub(super) fn select_if(&mut self, id: OpId) {
        if self.uni.is_divergent_op(id) {
            self.divergent_if(id);
        } else {
            self.uniform_if(id);
        }
    }

    pub(super) fn select_loop(&mut self, id: OpId) {
        // Both forms end the current block with the jump into the loop.
        self.preheaders.push(self.cur);
        if self.uni.is_divergent_op(id) {
            self.divergent_loop(id);
        } else {
            self.uniform_loop(id);
        }
        self.preheaders.pop();
    }

    /// The operands of the terminator (`Yield`/`LoopEnd`) of region `r`.
    fn terminator_operands(&self, r: crate::ir::RegionId) -> Vec<ValueId> {
        let region = self.f.region(r);
        let last = *region.ops.last().expect("region ends in a terminator");
        self.f.op(last).operands.clone()
    }

    /// `v` in the class of `result`'s bank (for block arguments).
    fn as_bank_of(&mut self, v: ValueId, result: ValueId) -> VReg {
        match (self.bank_of(result), self.ty(result)) {
            (Bank::V, _) => self.v(v),
            (Bank::Mask, _) => self.mask(v),
            (Bank::U, Ty::I1) => self.ubool(v),
            (Bank::U, _) => self.u(v),
        }
    }

    /// End the current block by entering `arm` of a divergent `if`; with `skip`, a
    /// `bexecz` goes instead to `past` with `past_args` when no lane is active (through a
    /// block of its own, placed after the kernel's end).
    fn enter_arm(&mut self, skip: bool, arm: BlockId, past: BlockId, past_args: Vec<VReg>) {
        if !skip {
            self.emit(
                MKind::Jump {
                    target: arm,
                    args: vec![],
                },
                vec![],
            );
            return;
        }
        let split = self.m.block();
        self.emit(
            MKind::Branch {
                op: super::isa("bexecz"),
                taken: split,
                fall: arm,
            },
            vec![],
        );
        let here = self.cur;
        self.cur = split;
        self.emit(
            MKind::Jump {
                target: past,
                args: past_args,
            },
            vec![],
        );
        self.cur = here;
        self.deferred_blocks.push(split);
    }

    fn uniform_if(&mut self, id: OpId) {
        let op = self.f.op(id).clone();
        let (cond, nonzero) = self.branch_cond(op.operands[0]);
        let then_b = self.m.block();
        let else_b = self.m.block();
        let join = self.m.block();
        let params: Vec<VReg> = op
            .results
            .iter()
            .map(|&r| {
                let class = Self::class_for(self.ty(r), self.bank_of(r));
                self.m.vreg(class)
            })
            .collect();
        self.m.blocks[join.0 as usize].params = params.clone();
        self.emit(
            MKind::Branch {
                op: super::isa(if nonzero { "bz" } else { "bnz" }),
                taken: else_b,
                fall: then_b,
            },
            vec![MOp::Use(cond)],
        );
        for (arm, block) in [(op.regions[0], then_b), (op.regions[1], else_b)] {
            self.switch_to(block);
            self.region(arm);
            let values = self.terminator_operands(arm);
            let args = values
                .iter()
                .zip(&op.results)
                .map(|(&v, &r)| self.as_bank_of(v, r))
                .collect();
            self.emit(MKind::Jump { target: join, args }, vec![]);
        }
        self.switch_to(join);
        for (&r, &p) in op.results.iter().zip(&params) {
            self.set(r, p);
        }
    }

    fn divergent_if(&mut self, id: OpId) {
        let op = self.f.op(id).clone();
        let skip = !self.has_barrier(id);
        let m = self.mask(op.operands[0]);
        // An else arm without operations yields values that exist before the `If`: the
        // results start out as those values and the then arm merges into them, so no else
        // part runs at all.
        let else_has_code = self.f.region(op.regions[1]).ops.len() > 1;
        let was_full = self.full_exec;

        // r0: the results' registers before the then arm writes its lanes.
        let else_vals = self.terminator_operands(op.regions[1]);
        let r0: Vec<VReg> = op
            .results
            .iter()
            .zip(&else_vals)
            .map(|(&r, &e)| {
                if !else_has_code {
                    return if self.ty(r) == Ty::I1 {
                        self.vbool(e)
                    } else {
                        self.v(e)
                    };
                }
                let reg = self.m.vreg(Self::class_for(self.ty(r), Bank::V));
                self.emit(MKind::ImplicitDef, vec![MOp::Def(reg)]);
                reg
            })
            .collect();
        let saved = self.def1("saveexec.and", RClass::U, vec![MOp::Use(m)]);
        self.full_exec = false;
        self.exec_changed();
        let then_b = self.m.block();
        let else_start = self.m.block();
        let join = self.m.block();
        let r1: Vec<VReg> = r0.iter().map(|&r| self.m.vreg(self.m.class(r))).collect();
        self.m.blocks[else_start.0 as usize].params = r1.clone();
        // Skipping the then part passes r0 on (no lane wrote it).
        self.enter_arm(skip, then_b, else_start, r0.clone());
        self.switch_to(then_b);
        self.region(op.regions[0]);
        let then_vals = self.terminator_operands(op.regions[0]);
        let merged = self.merge(&r0, &then_vals);
        self.emit(
            MKind::Jump {
                target: else_start,
                args: merged,
            },
            vec![],
        );

        self.switch_to(else_start);
        let out;
        if else_has_code {
            self.def1("saveexec.andn1", RClass::U, vec![MOp::Use(saved)]);
            self.exec_changed();
            let else_b = self.m.block();
            let join_params: Vec<VReg> = r1.iter().map(|&r| self.m.vreg(self.m.class(r))).collect();
            self.m.blocks[join.0 as usize].params = join_params.clone();
            self.enter_arm(skip, else_b, join, r1.clone());
            self.switch_to(else_b);
            self.region(op.regions[1]);
            let else_vals = self.terminator_operands(op.regions[1]);
            let merged = self.merge(&r1, &else_vals);
            self.emit(
                MKind::Jump {
                    target: join,
                    args: merged,
                },
                vec![],
            );
            out = join_params;
        } else {
            let params: Vec<VReg> = r1.iter().map(|&r| self.m.vreg(self.m.class(r))).collect();
            self.m.blocks[join.0 as usize].params = params.clone();
            out = params;
            self.emit(
                MKind::Jump {
                    target: join,
                    args: r1.clone(),
                },
                vec![],
            );
        }
        self.switch_to(join);
        self.full_exec = was_full;
        self.ins("exec.set", vec![MOp::Use(saved)]);
        self.exec_changed();
        for (&r, &reg) in op.results.iter().zip(&out) {
            self.set(r, reg);
        }
    }

    /// Merge `values` into the registers `into` under the current EXEC: one tied copy each
    /// (folded into the defining instruction when possible). Returns the new registers.
    fn merge(&mut self, into: &[VReg], values: &[ValueId]) -> Vec<VReg> {
        into.iter()
            .zip(values)
            .map(|(&old, &v)| self.tied_copy(old, v))
            .collect()
    }

    /// `old` with the active lanes replaced by `v`.
    pub(super) fn tied_copy(&mut self, old: VReg, v: ValueId) -> VReg {
        let class = self.m.class(old);
        if let (Some(bits), RClass::V) = (self.konst(v), class) {
            // A constant is written straight into the merged register.
            let def = self.m.vreg(class);
            let value = if self.ty(v) == Ty::I1 { bits & 1 } else { bits } as u32;
            let s = value as i32;
            if (-(1 << 17)..(1 << 17)).contains(&s) {
                self.ins("movi", vec![MOp::Tied { def, old }, MOp::Imm(i64::from(s))]);
            } else {
                self.ins("mov.vl", vec![MOp::Tied { def, old }, MOp::Lit(value)]);
            }
            return def;
        }
        let src = if self.ty(v) == Ty::I1 {
            self.vbool(v)
        } else if self.bank_of(v) == Bank::V || self.konst(v).is_some() {
            self.v(v)
        } else {
            self.u(v)
        };
        let def = self.m.vreg(class);
        self.emit(MKind::TiedCopy, vec![MOp::Tied { def, old }, MOp::Use(src)]);
        def
    }

    fn uniform_loop(&mut self, id: OpId) {
        let op = self.f.op(id).clone();
        let body = op.regions[0];
        let args = self.f.region(body).args.clone();
        let header = self.m.block();
        let params: Vec<VReg> = args
            .iter()
            .map(|&a| {
                let class = Self::class_for(self.ty(a), self.bank_of(a));
                self.m.vreg(class)
            })
            .collect();
        self.m.blocks[header.0 as usize].params = params.clone();
        let inits: Vec<VReg> = op
            .operands
            .iter()
            .zip(&args)
            .map(|(&v, &a)| self.as_bank_of(v, a))
            .collect();
        self.emit(
            MKind::Jump {
                target: header,
                args: inits,
            },
            vec![],
        );
        self.switch_to(header);
        for (&a, &p) in args.iter().zip(&params) {
            self.set(a, p);
        }
        self.region(body);
        let end = self.terminator_operands(body);
        let nexts: Vec<VReg> = end[1..]
            .iter()
            .zip(&args)
            .map(|(&v, &a)| self.as_bank_of(v, a))
            .collect();
        let (cond, nonzero) = self.branch_cond(end[0]);
        let back = self.m.block();
        let exit = self.m.block();
        self.emit(
            MKind::Branch {
                op: super::isa(if nonzero { "bnz" } else { "bz" }),
                taken: back,
                fall: exit,
            },
            vec![MOp::Use(cond)],
        );
        let here = self.cur;
        self.cur = back;
        self.emit(
            MKind::Jump {
                target: header,
                args: nexts.clone(),
            },
            vec![],
        );
        self.cur = here;
        self.deferred_blocks.push(back);
        self.switch_to(exit);
        for (&r, &n) in op.results.iter().zip(&nexts) {
            self.set(r, n);
        }
    }

    fn divergent_loop(&mut self, id: OpId) {
        let op = self.f.op(id).clone();
        let body = op.regions[0];
        let args = self.f.region(body).args.clone();
        let was_full = self.full_exec;
        let outer = self.exec();
        // Carried values: their own registers, plus an accumulator for each result that is
        // used after the loop and whose carried value is not already a vector register.
        let used_results: Vec<bool> = op.results.iter().map(|&r| self.is_used(r)).collect();
        let header = self.m.block();
        let mut params = Vec::new();
        let mut inits = Vec::new();
        let mut acc_of = vec![None; args.len()];
        for (i, &a) in args.iter().enumerate() {
            let class = Self::class_for(self.ty(a), self.bank_of(a));
            let p = self.m.vreg(class);
            params.push(p);
            let init = self.as_bank_of(op.operands[i], a);
            inits.push(init);
        }
        for (i, &a) in args.iter().enumerate() {
            if used_results[i] && self.bank_of(a) != Bank::V {
                let class = Self::class_for(self.ty(a), Bank::V);
                let acc = self.m.vreg(class);
                let undef = self.m.vreg(class);
                self.emit(MKind::ImplicitDef, vec![MOp::Def(undef)]);
                acc_of[i] = Some(params.len());
                params.push(acc);
                inits.push(undef);
            }
        }
        self.m.blocks[header.0 as usize].params = params.clone();
        self.emit(
            MKind::Jump {
                target: header,
                args: inits,
            },
            vec![],
        );
        self.switch_to(header);
        self.full_exec = false;
        for (&a, &p) in args.iter().zip(&params) {
            self.set(a, p);
        }
        self.region(body);
        let end = self.terminator_operands(body);
        let mut nexts = Vec::new();
        for (i, &a) in args.iter().enumerate() {
            let v = end[i + 1];
            let n = if self.bank_of(a) == Bank::V {
                // The carried register is its own accumulator: merge the next value into it
                // so that lanes which leave keep their last value.
                self.tied_copy(params[i], v)
            } else {
                self.as_bank_of(v, a)
            };
            nexts.push(n);
        }
        let mut results = vec![None; args.len()];
        for i in 0..args.len() {
            if let Some(slot) = acc_of[i] {
                let acc = self.tied_copy(params[slot], end[i + 1]);
                nexts.push(acc);
                results[i] = Some(acc);
            } else {
                results[i] = Some(nexts[i]);
            }
        }
        // `exec &= ~x` when the loop continues while `x` does not hold (a break flag).
        match self.negated_exit(end[0]) {
            Some(x) => {
                let m = self.mask(x);
                self.def1("saveexec.andn2", RClass::U, vec![MOp::Use(m)]);
            }
            None => {
                let cont = self.mask(end[0]);
                self.ins("exec.set", vec![MOp::Use(cont)]);
            }
        }
        self.exec_changed();
        let back = self.m.block();
        let exit = self.m.block();
        self.emit(
            MKind::Branch {
                op: super::isa("bexecnz"),
                taken: back,
                fall: exit,
            },
            vec![],
        );
        let here = self.cur;
        self.cur = back;
        self.emit(
            MKind::Jump {
                target: header,
                args: nexts,
            },
            vec![],
        );
        self.cur = here;
        self.deferred_blocks.push(back);
        self.switch_to(exit);
        self.full_exec = was_full;
        self.ins("exec.set", vec![MOp::Use(outer)]);
        self.exec_changed();
        for (i, &r) in op.results.iter().enumerate() {
            if let Some(reg) = results[i] {
                self.set(r, reg);
            }
        }
    }

    /// Whether IR value `v` has any use.
    fn is_used(&self, v: ValueId) -> bool {
        self.uses.get(v.0 as usize).copied().unwrap_or(0) > 0
    }

    /// Whether the regions of `id` contain a barrier (such a region must be entered by every
    /// warp, even one with no active lane, so it is never skipped).
    fn has_barrier(&self, id: OpId) -> bool {
        let mut stack: Vec<crate::ir::RegionId> = self.f.op(id).regions.clone();
        while let Some(r) = stack.pop() {
            for &o in &self.f.region(r).ops {
                let op = self.f.op(o);
                if matches!(op.kind, OpKind::Barrier { .. }) {
                    return true;
                }
                stack.extend(op.regions.iter().copied());
            }
        }
        false
    }
}

impl Isel<'_> {
    /// If `cont` is `not(x)` and used only as a divergent loop's continuation condition: `x`.
    pub(super) fn negated_exit(&self, cont: ValueId) -> Option<ValueId> {
        let op = self.f.def_op(cont)?;
        self.exit_negation(op).then(|| self.f.op(op).operands[0])
    }

    /// Whether op `id` is a `not` whose only use is a divergent loop's continuation
    /// condition (selected there as `saveexec.andn2`).
    pub(super) fn exit_negation(&self, id: OpId) -> bool {
        let op = self.f.op(id);
        if !matches!(op.kind, OpKind::Unary(crate::ir::UnOp::Not))
            || self.ty(op.results[0]) != Ty::I1
        {
            return false;
        }
        let r = op.results[0];
        self.uses_of(r) == 1
            && self.f.walk().into_iter().any(|u| {
                let user = self.f.op(u);
                matches!(user.kind, OpKind::LoopEnd)
                    && user.operands[0] == r
                    && !user.operands[1..].contains(&r)
                    && self
                        .f
                        .region(user.parent)
                        .parent
                        .is_some_and(|l| self.uni.is_divergent_op(l))
            })
    }
}
