//! A generated program's buffers do not depend on the order in which workgroups and
//! work-items run: the same with the interpreter running them last first. This checks the
//! generator's discipline (no races, commuting atomics, barriers before reading others'
//! `__local` slots) independently of the interpreter's race detector.
//! `CLSMITH_ORDER_SEEDS=N` runs more seeds (default 120).

use warpkit_clsmith::interp::{run, Options};
use warpkit_clsmith::{ArgValue, Config};

#[test]
fn results_do_not_depend_on_execution_order() {
    let n = crate::env_u64("CLSMITH_ORDER_SEEDS", 120);
    for seed in 0..n {
        let g = warpkit_clsmith::generate_program(2_000_000 + seed, &Config::default())
            .expect("program");
        let args: Vec<ArgValue> = g.args.iter().map(|a| a.value.clone()).collect();
        let forward = run(
            &g.program,
            g.kernel,
            g.grid,
            g.block,
            &args,
            &Options::default(),
        );
        let reverse = run(
            &g.program,
            g.kernel,
            g.grid,
            g.block,
            &args,
            &Options {
                reverse_order: true,
                ..Options::default()
            },
        );
        assert!(
            forward.is_ok(),
            "seed {}: {:?}",
            2_000_000 + seed,
            forward.err()
        );
        assert_eq!(
            forward,
            reverse,
            "seed {}: the order of execution changes the results",
            2_000_000 + seed
        );
    }
}

#[test]
fn reverse_order_runs_the_last_work_item_first() {
    // `out[gid] = atomic_inc(out + 15)`: the second work-item to run uses the result of
    // an atomic on a word another one updated, and is the one reported.
    use warpkit_clsmith::ast::*;
    use warpkit_clsmith::interp::trap::Ub;
    let int = |v: u64| {
        Expr::Int(IntLit {
            value: v,
            radix: Radix::Dec,
            suffix: Suffix::None,
            upper: false,
        })
    };
    let out = VarDecl {
        name: "out".into(),
        ty: Type::Ptr {
            space: Space::Global,
            konst: false,
            pointee: Box::new(Type::Scalar(Scalar::UInt)),
        },
        space: Space::Private,
        explicit_space: false,
        konst: false,
    };
    let gid = Expr::Builtin(Builtin::WorkItem(WorkItem::GlobalId), vec![int(0)]);
    let inc = Expr::Builtin(
        Builtin::Atomic {
            op: AtomicOp::Inc,
            short: false,
        },
        vec![Expr::Binary(
            BinOp::Add,
            Box::new(Expr::Var(0)),
            Box::new(int(15)),
        )],
    );
    let store = Expr::Assign(
        None,
        Box::new(Expr::Index(Box::new(Expr::Var(0)), Box::new(gid))),
        Box::new(inc),
    );
    let p = Program {
        functions: vec![Function {
            name: "k".into(),
            kernel: true,
            short_kernel_keyword: false,
            ret: Type::Void,
            params: vec![0],
            vars: vec![out],
            body: Block {
                stmts: vec![Stmt::Expr(store)],
            },
        }],
        ..Default::default()
    };
    let args = vec![ArgValue::Buffer(vec![0; 4 * 16])];
    let who = |reverse_order| match run(
        &p,
        0,
        [3, 1, 1],
        [5, 1, 1],
        &args,
        &Options {
            reverse_order,
            ..Options::default()
        },
    ) {
        Err(t) if matches!(t.ub, Ub::AtomicOrder(_)) => t.global_id[0],
        other => panic!("expected an order-dependent atomic, got {other:?}"),
    };
    assert_eq!(who(false), 1);
    assert_eq!(who(true), 13);
}
