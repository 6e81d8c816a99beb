//! No generated expression modifies an object and also reads or modifies it in an
//! unsequenced operand (C11 6.5p2: undefined, and compilers really do evaluate such
//! operands in different orders). The check is static, on the program's syntax, at the
//! generator's own granularity: a variable is one root and whatever its elements or its
//! pointer designate is another (`p[i]` and `*p` are the same root; aliases through a
//! second pointer are not followed). It sees what the interpreter cannot: the interpreter
//! evaluates operands in one fixed order and would agree with itself either way.
//! `CLSMITH_SEQ_SEEDS=N` runs more seeds (default 300).

use std::collections::BTreeSet;

use warpkit_clsmith::ast::{BinOp, Block, Expr, IncDec, Init, Stmt, UnOp, VarId};
use warpkit_clsmith::Config;

/// A variable itself (`false`) or the objects its elements or pointer designate (`true`).
type Root = (VarId, bool);

#[derive(Default)]
struct Eff {
    reads: BTreeSet<Root>,
    writes: BTreeSet<Root>,
}

impl Eff {
    fn join(&mut self, o: Eff) {
        self.reads.extend(o.reads);
        self.writes.extend(o.writes);
    }
}

/// Collects conflicts between unsequenced operands.
struct Checker<'a> {
    names: &'a dyn Fn(VarId) -> String,
    errors: Vec<String>,
}

impl Checker<'_> {
    fn name(&self, (v, pointee): Root) -> String {
        let n = (self.names)(v);
        if pointee {
            format!("{n}[]")
        } else {
            n
        }
    }

    /// Reports `a` and `b` (unsequenced operands) touching one root where either writes it.
    fn unsequenced(&mut self, a: &Eff, b: &Eff, what: &str) {
        let clash = a
            .writes
            .iter()
            .filter(|v| b.reads.contains(v) || b.writes.contains(v))
            .chain(b.writes.iter().filter(|v| a.reads.contains(v)));
        for r in clash {
            self.errors.push(format!(
                "{what}: `{}` written and used unsequenced",
                self.name(*r)
            ));
        }
    }

    /// Checks each pair of unsequenced operands (call arguments, binary operands).
    fn operands(&mut self, es: &[Expr], what: &str) -> Eff {
        let effs: Vec<Eff> = es.iter().map(|e| self.expr(e)).collect();
        for i in 0..effs.len() {
            for j in i + 1..effs.len() {
                self.unsequenced(&effs[i], &effs[j], what);
            }
        }
        let mut all = Eff::default();
        for e in effs {
            all.join(e);
        }
        all
    }

    /// The root an lvalue designates and the effects of computing its address.
    fn lvalue(&mut self, e: &Expr) -> (Option<Root>, Eff) {
        match e {
            Expr::Var(v) => (Some((*v, false)), Eff::default()),
            Expr::Index(a, i) => {
                // `a` is an array (its name reads nothing) or a pointer (read).
                let base = self.expr(a);
                let idx = self.expr(i);
                self.unsequenced(&base, &idx, "subscript");
                let mut addr = base;
                addr.join(idx);
                (root_of(a).map(|v| (v, true)), addr)
            }
            Expr::Member(s, _) => self.lvalue(s),
            Expr::Arrow(p, _) | Expr::Unary(UnOp::Deref, p) => {
                let eff = self.expr(p);
                (root_of(p).map(|v| (v, true)), eff)
            }
            other => (None, self.expr(other)),
        }
    }

    /// The value of lvalue `e`: its address's effects and a read of its root.
    fn read(&mut self, e: &Expr) -> Eff {
        let (root, mut eff) = self.lvalue(e);
        eff.reads.extend(root);
        eff
    }

    fn expr(&mut self, e: &Expr) -> Eff {
        match e {
            Expr::Var(v) => Eff {
                reads: [(*v, false)].into(),
                writes: BTreeSet::new(),
            },
            Expr::Int(_)
            | Expr::Float(_)
            | Expr::Const(_)
            | Expr::MacroParam(_)
            | Expr::SizeOf(_) => Eff::default(),
            Expr::Unary(UnOp::AddrOf, x) => self.lvalue(x).1,
            Expr::Index(..) | Expr::Member(..) | Expr::Arrow(..) | Expr::Unary(UnOp::Deref, _) => {
                self.read(e)
            }
            Expr::Unary(_, x) | Expr::Cast(_, x) => self.expr(x),
            Expr::IncDec(_, x) => {
                let (root, mut eff) = self.lvalue(x);
                if let Some(r) = root {
                    eff.reads.insert(r);
                    eff.writes.insert(r);
                }
                eff
            }
            Expr::Binary(BinOp::LogAnd | BinOp::LogOr, a, b) | Expr::Comma(a, b) => {
                let mut eff = self.expr(a);
                eff.join(self.expr(b));
                eff
            }
            Expr::Binary(_, a, b) => self.operands(&[(**a).clone(), (**b).clone()], "operands"),
            Expr::Cond(c, a, b) => {
                let mut eff = self.expr(c);
                eff.join(self.expr(a));
                eff.join(self.expr(b));
                eff
            }
            Expr::Assign(_, lhs, rhs) => {
                let (root, mut eff) = self.lvalue(lhs);
                let value = self.expr(rhs);
                self.unsequenced(&eff, &value, "assignment");
                if let Some(r) = root {
                    if value.writes.contains(&r) {
                        self.errors.push(format!(
                            "assignment: `{}` written twice unsequenced",
                            self.name(r)
                        ));
                    }
                    eff.reads.insert(r);
                    eff.writes.insert(r);
                }
                eff.join(value);
                eff
            }
            Expr::Call(_, args) | Expr::Builtin(_, args) | Expr::Macro(_, args) => {
                self.operands(args, "arguments")
            }
        }
    }

    fn block(&mut self, b: &Block) {
        for s in &b.stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Decl(_, init) => self.init(init.as_ref()),
            Stmt::Expr(e) | Stmt::Return(Some(e)) => {
                self.expr(e);
            }
            Stmt::Block(b) => self.block(b),
            Stmt::If(c, t, e) => {
                self.expr(c);
                self.block(t);
                if let Some(e) = e {
                    self.block(e);
                }
            }
            Stmt::For(init, c, step, body) => {
                if let Some(i) = init {
                    self.stmt(i);
                }
                for e in c.iter().chain(step) {
                    self.expr(e);
                }
                self.block(body);
            }
            Stmt::While(c, b) | Stmt::DoWhile(b, c) => {
                self.expr(c);
                self.block(b);
            }
            Stmt::Switch(e, arms) => {
                self.expr(e);
                for arm in arms {
                    for s in &arm.body {
                        self.stmt(s);
                    }
                }
            }
            Stmt::PpIf { then, els, .. } => {
                self.block(then);
                self.block(els);
            }
            Stmt::Break | Stmt::Continue | Stmt::Return(None) | Stmt::Barrier(_) => {}
        }
    }

    fn init(&mut self, init: Option<&Init>) {
        match init {
            Some(Init::Expr(e)) => {
                self.expr(e);
            }
            Some(Init::List(items)) => {
                for i in items {
                    self.init(Some(i));
                }
            }
            None => {}
        }
    }
}

fn root_of(e: &Expr) -> Option<VarId> {
    match e {
        Expr::Var(v) => Some(*v),
        Expr::Index(a, _) | Expr::Member(a, _) | Expr::Arrow(a, _) | Expr::Cast(_, a) => root_of(a),
        Expr::Unary(UnOp::Deref | UnOp::AddrOf, a) => root_of(a),
        _ => None,
    }
}

/// The sequencing errors of one seed's program.
fn errors(seed: u64, config: &Config) -> Vec<String> {
    let Ok(g) = warpkit_clsmith::generate_program(seed, config) else {
        return Vec::new(); // a generator error is `ub_free`'s business
    };
    let mut out = Vec::new();
    for f in &g.program.functions {
        let names = |v: VarId| f.vars[v as usize].name.clone();
        let mut c = Checker {
            names: &names,
            errors: Vec::new(),
        };
        c.block(&f.body);
        out.extend(c.errors.into_iter().map(|e| format!("{}: {e}", f.name)));
    }
    out
}

#[test]
fn no_variable_is_written_and_used_unsequenced() {
    let n = crate::env_u64("CLSMITH_SEQ_SEEDS", 300);
    let configs = [Config::default(), Config::host_c()];
    let mut failures = Vec::new();
    // Seed 56 once wrote `v6` in a `__local` store's value and read it in its subscript.
    for seed in std::iter::once(56).chain(0..n) {
        let config = &configs[(seed % 2) as usize];
        for e in errors(seed, config) {
            failures.push(format!("seed {seed}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} errors:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
}

#[test]
fn the_checker_sees_a_write_in_a_value_read_by_its_subscript() {
    // `a[v & 7] = v = 1;` (v is variable 1).
    let store = Expr::Assign(
        None,
        Box::new(Expr::Index(
            Box::new(Expr::Var(0)),
            Box::new(Expr::Binary(
                BinOp::And,
                Box::new(Expr::Var(1)),
                Box::new(Expr::Var(2)),
            )),
        )),
        Box::new(Expr::Assign(
            None,
            Box::new(Expr::Var(1)),
            Box::new(Expr::Var(2)),
        )),
    );
    let names = |v: VarId| ["a", "v", "k"][v as usize].to_string();
    let mut c = Checker {
        names: &names,
        errors: Vec::new(),
    };
    c.expr(&store);
    assert_eq!(c.errors, ["assignment: `v` written and used unsequenced"]);
    // `f(a + 1, a[0]--)` passes a pointer and writes what it points to: fine.
    let mut c = Checker {
        names: &names,
        errors: Vec::new(),
    };
    c.expr(&Expr::Call(
        0,
        vec![
            Expr::Binary(BinOp::Add, Box::new(Expr::Var(0)), Box::new(Expr::Var(2))),
            Expr::IncDec(
                IncDec::PostDec,
                Box::new(Expr::Index(Box::new(Expr::Var(0)), Box::new(Expr::Var(2)))),
            ),
        ],
    ));
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    // `v = v + 1;` and `a[v] = a[v] + 1;` are fine.
    let mut c = Checker {
        names: &names,
        errors: Vec::new(),
    };
    let inc = Expr::Assign(
        None,
        Box::new(Expr::Var(1)),
        Box::new(Expr::Binary(
            BinOp::Add,
            Box::new(Expr::Var(1)),
            Box::new(Expr::Var(2)),
        )),
    );
    c.expr(&inc);
    let elem = || Expr::Index(Box::new(Expr::Var(0)), Box::new(Expr::Var(1)));
    c.expr(&Expr::Assign(
        None,
        Box::new(elem()),
        Box::new(Expr::Binary(
            BinOp::Add,
            Box::new(elem()),
            Box::new(Expr::Var(2)),
        )),
    ));
    assert!(c.errors.is_empty(), "{:?}", c.errors);
}
