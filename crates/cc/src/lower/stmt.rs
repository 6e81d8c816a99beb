//! Statements as structured control flow: `if` → `If`; loops → `If(cond) { Loop { body;
//! LoopEnd(!brk && !ret && cond) } }` (rotated; do-while without the guard); `switch` → one
//! `If` per group of case labels, with a `matched` flag for fallthrough; `break`,
//! `continue` and `return` set flags that guard the rest of every enclosing block up to
//! their construct.

use super::{Breakable, Lowerer, RetSlot, VarVal};
use crate::ast::{self, BlockItem, Expr, ForInit, Stmt, StmtKind};
use crate::ir::{BinOp, CmpPred, Ty, ValueId};
use crate::source::Span;

/// A block item, borrowed (switch segments are assembled from pieces of statements).
#[derive(Clone, Copy)]
pub(crate) enum Item<'b> {
    Decl(&'b ast::Declaration),
    Stmt(&'b Stmt),
}

impl Item<'_> {
    fn span(&self) -> Span {
        match self {
            Item::Decl(d) => d.span,
            Item::Stmt(s) => s.span,
        }
    }
}

/// A label's values: `None` for `default`, else the low value and a GNU range's high one.
type CaseLabel = Option<(u64, Option<u64>)>;

/// One group of `case` labels of a switch and the statements up to the next group.
struct Segment<'b> {
    labels: Vec<Label<'b>>,
    items: Vec<Item<'b>>,
    span: Span,
}

enum Label<'b> {
    Case(&'b Expr, Option<&'b Expr>),
    Default,
}

impl<'a> Lowerer<'a> {
    pub(crate) fn stmt(&mut self, s: &Stmt) {
        let span = s.span;
        match &s.kind {
            StmtKind::Compound(items) => {
                let items: Vec<Item> = items
                    .iter()
                    .map(|i| match i {
                        BlockItem::Decl(d) => Item::Decl(d),
                        BlockItem::Stmt(s) => Item::Stmt(s),
                    })
                    .collect();
                self.scoped(|s| s.items(&items));
            }
            StmtKind::Expr(None) => {}
            StmtKind::Expr(Some(e)) => {
                self.expr(e);
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => self.if_stmt(cond, then, otherwise.as_deref(), span),
            StmtKind::While { cond, body } => {
                self.scoped(|s| s.loop_stmt(Some(cond), None, body, false, span));
            }
            StmtKind::DoWhile { body, cond } => {
                self.scoped(|s| s.loop_stmt(Some(cond), None, body, true, span));
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => self.scoped(|s| {
                match init {
                    ForInit::Decl(d) => s.local_decl(d),
                    ForInit::Expr(e) => {
                        s.expr(e);
                    }
                    ForInit::None => {}
                }
                s.loop_stmt(cond.as_ref(), step.as_ref(), body, false, span);
            }),
            StmtKind::Switch { expr, body } => self.switch(expr, body, span),
            StmtKind::Case { value, body, .. } => {
                self.error(value.span, "'case' statement not in switch statement");
                self.stmt(body);
            }
            StmtKind::Default(body) => {
                self.error(span, "'default' statement not in switch statement");
                self.stmt(body);
            }
            StmtKind::Labeled { body, .. } => self.stmt(body),
            StmtKind::Goto(_) => self.unsupported(span, "'goto' statement"),
            StmtKind::Break => match self.frame().breakables.last() {
                Some(b) => {
                    let brk = b.brk;
                    self.cur[brk.0 as usize] = VarVal::True;
                }
                None => self.error(span, "'break' statement not in loop or switch statement"),
            },
            StmtKind::Continue => match self.frame().breakables.iter().rev().find_map(|b| b.cnt) {
                Some(cnt) => self.cur[cnt.0 as usize] = VarVal::True,
                None => self.error(span, "'continue' statement not in loop statement"),
            },
            StmtKind::Return(value) => self.return_stmt(value.as_ref(), span),
        }
    }

    /// A list of block items: after an item that may have set a flag, the rest is guarded.
    pub(crate) fn items(&mut self, items: &[Item]) {
        for (i, item) in items.iter().enumerate() {
            match item {
                Item::Decl(d) => self.local_decl(d),
                Item::Stmt(s) => self.stmt(s),
            }
            let rest = &items[i + 1..];
            if rest.is_empty() {
                return;
            }
            let flags = self.active_flags();
            let span = rest[0].span();
            if self.guard(&flags, span, |s| s.items(rest)) {
                return;
            }
        }
    }

    fn if_stmt(&mut self, cond: &Expr, then: &Stmt, otherwise: Option<&Stmt>, span: Span) {
        if let Some(truth) = self.const_truth(cond) {
            // Constant conditions are common in macro-made code: only the arm taken is code.
            self.cond(cond);
            let (taken, dead) = if truth {
                (Some(then), otherwise)
            } else {
                (otherwise, Some(then))
            };
            if let Some(d) = dead {
                self.dead(|s| s.scoped(|s| s.stmt(d)));
            }
            if let Some(t) = taken {
                self.scoped(|s| s.stmt(t));
            }
            return;
        }
        let c = self.cond(cond);
        self.build_if(
            c,
            span,
            |s| {
                s.scoped(|s| s.stmt(then));
                Vec::new()
            },
            |s| {
                if let Some(o) = otherwise {
                    s.scoped(|s| s.stmt(o));
                }
                Vec::new()
            },
            &[],
        );
    }

    /// `while`, `do`-`while` and `for` (whose init clause the caller has lowered).
    fn loop_stmt(
        &mut self,
        cond: Option<&Expr>,
        step: Option<&Expr>,
        body: &Stmt,
        do_while: bool,
        span: Span,
    ) {
        let truth = match cond {
            None => Some(true),
            Some(c) => self.const_truth(c),
        };
        let cond_span = cond.map_or(span, |c| c.span);
        if truth == Some(false) {
            if do_while {
                // `do { ... } while (0)`: the body once; `break`/`continue` leave it.
                self.with_breakable(true, |s| s.scoped(|s| s.stmt(body)));
                if let Some(c) = cond {
                    self.cond(c);
                }
            } else {
                if let Some(c) = cond {
                    self.cond(c);
                }
                self.dead(|s| {
                    s.with_breakable(true, |s| s.scoped(|s| s.stmt(body)));
                    if let Some(st) = step {
                        s.expr(st);
                    }
                });
            }
            return;
        }
        let lower_cond = |s: &mut Self, muted: bool| -> ValueId {
            match (cond, truth) {
                (Some(c), None) => {
                    if muted {
                        s.mute += 1;
                    }
                    let v = s.cond(c);
                    if muted {
                        s.mute -= 1;
                    }
                    v
                }
                _ => s.konst(Ty::I1, 1, cond_span),
            }
        };
        let the_loop = |s: &mut Self, muted: bool| {
            s.build_loop(span, |s| {
                s.with_breakable(true, |s| {
                    s.scoped(|s| s.stmt(body));
                    let brk = s.frame().breakables.last().expect("loop").brk;
                    let ret = s.frame().ret;
                    // The end of an iteration: `continue` still runs the step; `break` and
                    // `return` skip the step and the condition.
                    let set: Vec<_> = [brk, ret]
                        .into_iter()
                        .filter(|&f| s.flag_may_be_set(f))
                        .collect();
                    let step_and_cond = |s: &mut Self| {
                        if let Some(st) = step {
                            s.expr(st);
                        }
                        lower_cond(s, muted)
                    };
                    if set.is_empty() {
                        step_and_cond(s)
                    } else if set.iter().any(|&f| s.cur[f.0 as usize] == VarVal::True) {
                        s.dead(step_and_cond);
                        s.konst(Ty::I1, 0, cond_span)
                    } else {
                        let vals: Vec<ValueId> =
                            set.iter().map(|&f| s.read_var(f, cond_span)).collect();
                        let any = s.or_all(&vals, cond_span);
                        let go = s.not(any, cond_span);
                        if step.is_none() && truth == Some(true) {
                            // `while (1)`: the loop goes on exactly when no flag is set.
                            return go;
                        }
                        s.build_if(
                            go,
                            cond_span,
                            |s| {
                                let mark = s.known_false.len();
                                s.known_false.extend(&vals);
                                let c = step_and_cond(s);
                                s.known_false.truncate(mark);
                                vec![c]
                            },
                            |s| vec![s.konst(Ty::I1, 0, cond_span)],
                            &[Ty::I1],
                        )[0]
                    }
                })
            });
        };
        if do_while || truth == Some(true) {
            the_loop(self, false);
            return;
        }
        let c = lower_cond(self, false);
        self.build_if(
            c,
            span,
            |s| {
                the_loop(s, true);
                Vec::new()
            },
            |_| Vec::new(),
            &[],
        );
    }

    /// Run `f` with a new `break` target (and `continue` target for a loop), whose flags are
    /// discarded afterwards.
    fn with_breakable<R>(&mut self, is_loop: bool, f: impl FnOnce(&mut Self) -> R) -> R {
        let brk = self.new_flag("break");
        let cnt = is_loop.then(|| self.new_flag("continue"));
        self.frame_mut().breakables.push(Breakable { brk, cnt });
        let r = f(self);
        self.frame_mut().breakables.pop();
        self.kill_var(brk);
        if let Some(c) = cnt {
            self.kill_var(c);
        }
        r
    }

    fn return_stmt(&mut self, value: Option<&Expr>, span: Span) {
        let frame = self.frame().clone();
        match (value, frame.retval) {
            (Some(e), None) => {
                let rv = self.expr(e);
                if !rv.ty.is_void() && !rv.ty.is_error() {
                    self.error_in(
                        e.span,
                        e.expansion,
                        format!("void function '{}' should not return a value", frame.name),
                    );
                }
            }
            (None, Some(_)) => {
                self.error(
                    span,
                    format!("non-void function '{}' should return a value", frame.name),
                );
            }
            (None, None) => {}
            (Some(e), Some(RetSlot::Var(v))) => {
                let rv = self.expr(e);
                let val = self.implicit_rv(rv, &frame.ret_ty, e, super::convert::Conv::Return);
                if val.ty.is_vector() {
                    for (l, &x) in self.var_lanes(v).into_iter().zip(&val.lanes) {
                        self.write_var(l, x);
                    }
                } else if let Some(x) = val.v {
                    self.write_var(v, x);
                }
            }
            (Some(e), Some(RetSlot::Mem(i))) => {
                let rv = self.expr(e);
                if !rv.ty.is_error() {
                    if !super::types::same_type(&rv.ty, &frame.ret_ty) {
                        let (t, f) = (self.show_ty(&frame.ret_ty), self.show_ty(&rv.ty));
                        self.error_in(
                            e.span,
                            e.expansion,
                            format!("returning '{f}' from a function with incompatible result type '{t}'"),
                        );
                    } else if let Some(src) = rv.v {
                        let size = self.records.size(&frame.ret_ty).unwrap_or(0);
                        let align = self.records.align(&frame.ret_ty);
                        let dst = self.emit(
                            crate::ir::OpKind::PrivateAddr(i),
                            vec![],
                            Ty::Ptr(crate::ir::Space::Private),
                            span,
                        );
                        self.copy_mem(dst, src, size, align, span);
                    }
                }
            }
        }
        self.cur[frame.ret.0 as usize] = VarVal::True;
    }

    // ---- switch ----

    fn switch(&mut self, expr: &Expr, body: &Stmt, span: Span) {
        let rv = self.expr(expr);
        let ty = if rv.ty.is_integer() {
            rv.ty.promoted()
        } else {
            if !rv.ty.is_error() {
                let t = self.show_ty(&rv.ty);
                self.error_in(
                    expr.span,
                    expr.expansion,
                    format!("statement requires expression of integer type ('{t}' invalid)"),
                );
            }
            super::types::Type::INT
        };
        let v = self.rv_to(rv, &ty, expr.span);
        let signed = ty.is_signed();
        let kind = ty.int_kind().unwrap_or(super::types::IntKind::Int);

        // The body's items, cut into segments at the case labels.
        let body_items: Vec<Item> = match &body.kind {
            StmtKind::Compound(items) => items
                .iter()
                .map(|i| match i {
                    BlockItem::Decl(d) => Item::Decl(d),
                    BlockItem::Stmt(s) => Item::Stmt(s),
                })
                .collect(),
            _ => vec![Item::Stmt(body)],
        };
        let mut prefix: Vec<Item> = Vec::new();
        let mut segments: Vec<Segment> = Vec::new();
        for item in body_items {
            let mut labels = Vec::new();
            let mut cur = item;
            while let Item::Stmt(s) = cur {
                match &s.kind {
                    StmtKind::Case { value, high, body } => {
                        labels.push(Label::Case(value, high.as_ref()));
                        cur = Item::Stmt(body);
                    }
                    StmtKind::Default(body) => {
                        labels.push(Label::Default);
                        cur = Item::Stmt(body);
                    }
                    _ => break,
                }
            }
            if labels.is_empty() {
                match segments.last_mut() {
                    Some(seg) => seg.items.push(cur),
                    None => prefix.push(cur),
                }
            } else {
                segments.push(Segment {
                    labels,
                    items: vec![cur],
                    span: item.span(),
                });
            }
        }
        for seg in &segments {
            for item in &seg.items {
                if let Item::Stmt(s) = item {
                    self.report_nested_labels(s);
                }
            }
        }
        // Case values: constants of the promoted type, each once.
        let mut seen: Vec<(i128, i128, Span)> = Vec::new();
        let mut values: Vec<Vec<CaseLabel>> = Vec::new();
        let mut has_default = false;
        for seg in &segments {
            let mut vs = Vec::new();
            for l in &seg.labels {
                match l {
                    Label::Default => {
                        if has_default {
                            self.error(seg.span, "multiple default labels in one switch");
                        }
                        has_default = true;
                        vs.push(None);
                    }
                    Label::Case(lo, hi) => {
                        let Some(a) = self.ice(lo) else {
                            continue;
                        };
                        let b = match hi {
                            Some(h) => match self.ice(h) {
                                Some(b) => b,
                                None => continue,
                            },
                            None => a,
                        };
                        let (a, b) = (kind.value(a as u64), kind.value(b as u64));
                        if let Some(&(_, _, prev)) =
                            seen.iter().find(|(x, y, _)| a <= *y && *x <= b)
                        {
                            self.report(
                                crate::diag::Diagnostic::error(
                                    lo.span,
                                    format!("duplicate case value '{a}'"),
                                )
                                .with_note("previous case defined here", Some(prev)),
                            );
                            continue;
                        }
                        seen.push((a, b, lo.span));
                        vs.push(Some((a as u64, hi.map(|_| b as u64))));
                    }
                }
            }
            values.push(vs);
        }

        let flag_brk = self.new_flag("break");
        let matched = self.new_flag("matched");
        let vty = self.vty(v);
        let label_cond =
            |s: &mut Self, lab: &CaseLabel, any: Option<ValueId>, sp: Span| -> ValueId {
                match lab {
                    None => match any {
                        Some(a) => s.not(a, sp),
                        None => s.konst(Ty::I1, 1, sp),
                    },
                    Some((lo, None)) => {
                        let c = s.konst(vty, *lo, sp);
                        s.cmp(CmpPred::Eq, v, c, sp)
                    }
                    Some((lo, Some(hi))) => {
                        let (ge, le) = if signed {
                            (CmpPred::Sge, CmpPred::Sle)
                        } else {
                            (CmpPred::Uge, CmpPred::Ule)
                        };
                        let a = s.konst(vty, *lo, sp);
                        let b = s.konst(vty, *hi, sp);
                        let x = s.cmp(ge, v, a, sp);
                        let y = s.cmp(le, v, b, sp);
                        s.bin(BinOp::And, x, y, sp)
                    }
                }
            };
        // Whether any case matches, for `default`.
        let any = if has_default {
            let mut acc: Option<ValueId> = None;
            for vs in &values {
                for lab in vs.iter().filter(|l| l.is_some()) {
                    let c = label_cond(self, lab, None, span);
                    acc = Some(match acc {
                        Some(a) => self.bin(BinOp::Or, a, c, span),
                        None => c,
                    });
                }
            }
            Some(acc.unwrap_or_else(|| self.konst(Ty::I1, 0, span)))
        } else {
            None
        };

        self.frame_mut().breakables.push(Breakable {
            brk: flag_brk,
            cnt: None,
        });
        self.scoped(|s| {
            if !prefix.is_empty() {
                // Never executed, but its declarations are visible in the cases.
                s.predeclare(&prefix);
                s.dead(|s| s.items(&prefix));
            }
            for (seg, vs) in segments.iter().zip(&values) {
                // Declarations of the segment stay visible in the later ones.
                s.predeclare(&seg.items);
                let mut m: Option<ValueId> = None;
                for lab in vs {
                    let c = label_cond(s, lab, any, seg.span);
                    m = Some(match m {
                        Some(a) => s.bin(BinOp::Or, a, c, seg.span),
                        None => c,
                    });
                }
                let m = m.unwrap_or_else(|| s.konst(Ty::I1, 0, seg.span));
                let m = if s.flag_may_be_set(matched) {
                    let prev = s.read_var(matched, seg.span);
                    s.bin(BinOp::Or, prev, m, seg.span)
                } else {
                    m
                };
                s.write_var(matched, m);
                let flags = s.active_flags();
                let set: Vec<_> = flags
                    .into_iter()
                    .filter(|&f| s.flag_may_be_set(f))
                    .collect();
                if set.iter().any(|&f| s.cur[f.0 as usize] == VarVal::True) {
                    s.dead(|s| s.items(&seg.items));
                    continue;
                }
                let go = if set.is_empty() {
                    m
                } else {
                    let vals: Vec<ValueId> = set.iter().map(|&f| s.read_var(f, seg.span)).collect();
                    let stop = s.or_all(&vals, seg.span);
                    let nstop = s.not(stop, seg.span);
                    s.bin(BinOp::And, m, nstop, seg.span)
                };
                if let Some(c) = s.const_of(go) {
                    if c == 1 {
                        s.items(&seg.items);
                    } else {
                        s.dead(|s| s.items(&seg.items));
                    }
                    continue;
                }
                let known: Vec<ValueId> = set.iter().map(|&f| s.read_var(f, seg.span)).collect();
                s.build_if(
                    go,
                    seg.span,
                    |s| {
                        let mark = s.known_false.len();
                        s.known_false.extend(&known);
                        s.items(&seg.items);
                        s.known_false.truncate(mark);
                        Vec::new()
                    },
                    |_| Vec::new(),
                    &[],
                );
            }
        });
        self.frame_mut().breakables.pop();
        self.kill_var(flag_brk);
        self.kill_var(matched);
    }

    /// Declare (without initializing) the variables a switch segment declares at its top
    /// level, so that they outlive the segment's `If`.
    fn predeclare(&mut self, items: &[Item]) {
        for item in items {
            if let Item::Decl(d) = item {
                let base = self.base_type(&d.specs);
                self.predeclaring = true;
                for id in &d.declarators {
                    let v = self.local_declarator(d, &base, id);
                    self.predeclared.insert(id as *const _, v);
                }
                self.predeclaring = false;
            }
        }
    }

    /// `case` labels inside nested statements of a switch body (Duff's device).
    fn report_nested_labels(&mut self, s: &Stmt) {
        let mut stack = vec![s];
        while let Some(s) = stack.pop() {
            match &s.kind {
                StmtKind::Case { .. } | StmtKind::Default(_) => {
                    self.unsupported(s.span, "'case' label inside a nested statement of a switch");
                    return;
                }
                StmtKind::Compound(items) => {
                    for i in items {
                        if let BlockItem::Stmt(s) = i {
                            stack.push(s);
                        }
                    }
                }
                StmtKind::If {
                    then, otherwise, ..
                } => {
                    stack.push(then);
                    if let Some(o) = otherwise {
                        stack.push(o);
                    }
                }
                StmtKind::While { body, .. }
                | StmtKind::DoWhile { body, .. }
                | StmtKind::For { body, .. } => stack.push(body),
                StmtKind::Labeled { body, .. } => stack.push(body),
                _ => {}
            }
        }
    }
}
