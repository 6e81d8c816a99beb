//! Renumbering: passes leave detached operations, regions and values behind in the
//! function's vectors; [`compact`] drops them and numbers what remains densely, in program
//! order (a region's arguments, then each operation and its results before the regions it
//! owns), so that later stages index dense tables and printed IR reads top to bottom.

use crate::ir::{Function, Op, OpId, Region, RegionId, ValueDef, ValueId, ValueInfo};

/// Drop everything unreachable from the body and renumber the rest in program order.
pub fn compact(func: &mut Function) {
    let mut n = Numbering {
        values: vec![None; func.values.len()],
        ops: vec![None; func.ops.len()],
        regions: vec![None; func.regions.len()],
        value_order: Vec::new(),
        op_order: Vec::new(),
        region_order: Vec::new(),
    };
    n.region(func, func.body);
    let value = |v: ValueId| n.values[v.0 as usize].expect("operands are reachable values");
    let op_id = |o: OpId| n.ops[o.0 as usize].expect("reachable op");
    let region_id = |r: RegionId| n.regions[r.0 as usize].expect("reachable region");
    let values = n
        .value_order
        .iter()
        .map(|&v| {
            let info = func.values[v.0 as usize];
            let def = match info.def {
                ValueDef::Op(o, i) => ValueDef::Op(op_id(o), i),
                ValueDef::Arg(r, i) => ValueDef::Arg(region_id(r), i),
            };
            ValueInfo { ty: info.ty, def }
        })
        .collect();
    let ops = n
        .op_order
        .iter()
        .map(|&o| {
            let op = func.op(o);
            Op {
                kind: op.kind.clone(),
                operands: op.operands.iter().map(|&v| value(v)).collect(),
                results: op.results.iter().map(|&v| value(v)).collect(),
                regions: op.regions.iter().map(|&r| region_id(r)).collect(),
                parent: region_id(op.parent),
                span: op.span,
            }
        })
        .collect();
    let regions = n
        .region_order
        .iter()
        .map(|&r| {
            let region = func.region(r);
            Region {
                args: region.args.iter().map(|&v| value(v)).collect(),
                ops: region.ops.iter().map(|&o| op_id(o)).collect(),
                parent: region.parent.map(op_id),
            }
        })
        .collect();
    func.body = region_id(func.body);
    func.values = values;
    func.ops = ops;
    func.regions = regions;
}

struct Numbering {
    values: Vec<Option<ValueId>>,
    ops: Vec<Option<OpId>>,
    regions: Vec<Option<RegionId>>,
    value_order: Vec<ValueId>,
    op_order: Vec<OpId>,
    region_order: Vec<RegionId>,
}

impl Numbering {
    fn value(&mut self, v: ValueId) {
        self.values[v.0 as usize] = Some(ValueId(self.value_order.len() as u32));
        self.value_order.push(v);
    }

    fn region(&mut self, func: &Function, r: RegionId) {
        self.regions[r.0 as usize] = Some(RegionId(self.region_order.len() as u32));
        self.region_order.push(r);
        for &a in &func.region(r).args {
            self.value(a);
        }
        for &op in &func.region(r).ops {
            self.ops[op.0 as usize] = Some(OpId(self.op_order.len() as u32));
            self.op_order.push(op);
            for &v in &func.op(op).results {
                self.value(v);
            }
            for &nested in &func.op(op).regions {
                self.region(func, nested);
            }
        }
    }
}
