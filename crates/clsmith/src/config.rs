//! What the generator may emit and how big a program may get.

/// Sizes and feature switches of the generator. [`Config::default`] enables every feature;
/// [`Config::host_c`] is the subset whose meaning a host C compiler shares (the
/// cross-check of the interpreter against `cc`). Some things are never generated
/// whatever the switches: `goto`, recursion, `half`, vectors, images, `printf`, unions,
/// variable-length arrays, `get_global_offset`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Statement budget of the tested kernel's body (helpers get a quarter each).
    pub max_stmts: u32,
    /// Deepest nesting of compound statements (`if`, loops, `switch`, blocks).
    pub max_depth: u32,
    /// Deepest nesting of expressions.
    pub max_expr_depth: u32,
    /// Largest trip count of one loop; the product over nested loops is bounded by
    /// `max_loop_trips * max_loop_trips * 2`.
    pub max_loop_trips: u32,
    /// Most helper functions (never recursive; each calls only helpers defined before it).
    pub max_helpers: u32,
    /// `float` variables, arithmetic, buffers and built-ins.
    pub floats: bool,
    /// `double` (with `#pragma OPENCL EXTENSION cl_khr_fp64 : enable`) and unsuffixed
    /// floating literals.
    pub doubles: bool,
    /// `__local` arrays and `__local` pointer parameters, `barrier`.
    pub local_memory: bool,
    /// `atomic_*` and `atom_*` on `__global` (and, with `local_memory`, `__local`) words.
    pub atomics: bool,
    /// `typedef struct` types: copies, members, arrays inside, passing and returning by value.
    pub structs: bool,
    /// Arrays in private memory.
    pub private_arrays: bool,
    /// Pointer variables and parameters, pointer arithmetic and comparisons.
    pub pointers: bool,
    /// `switch` with fallthrough and `default`.
    pub switches: bool,
    /// `#define` (with and without parameters) and `#if`/`#else`/`#endif`.
    pub macros: bool,
    /// `__constant` arrays at program scope.
    pub constant_tables: bool,
    /// Shift counts that may reach or exceed the width of the promoted left operand or be
    /// negative, relying on OpenCL C's rule (only the low log2(N) bits of the count are
    /// used). Off, every count is masked explicitly (`x << (c & 31)`), which C also defines.
    pub opencl_shift_rule: bool,
    /// `return` from the kernel taken by some work-items only, before barriers the others
    /// still reach (a returned work-item no longer takes part in barriers).
    pub divergent_returns_before_barriers: bool,
    /// A second kernel in the source besides the tested one.
    pub extra_kernels: bool,
    /// Subnormal values among the floating-point inputs.
    pub subnormals: bool,
    /// Largest number of workgroups per dimension.
    pub max_grid: [u32; 3],
    /// Largest workgroup size per dimension.
    pub max_block: [u32; 3],
    /// Largest number of work-items of a launch.
    pub max_work_items: u32,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            max_stmts: 60,
            max_depth: 4,
            max_expr_depth: 4,
            max_loop_trips: 8,
            max_helpers: 3,
            floats: true,
            doubles: true,
            local_memory: true,
            atomics: true,
            structs: true,
            private_arrays: true,
            pointers: true,
            switches: true,
            macros: true,
            constant_tables: true,
            opencl_shift_rule: true,
            divergent_returns_before_barriers: true,
            extra_kernels: true,
            subnormals: true,
            max_grid: [4, 2, 2],
            max_block: [64, 2, 2],
            max_work_items: 256,
        }
    }
}

impl Config {
    /// Everything a host C compiler runs with OpenCL C's meaning once the prelude of the
    /// cross-check defines the OpenCL names: no `__local` memory or barriers (a host loop
    /// runs one work-item after another) and shift counts always masked (C leaves large
    /// counts undefined).
    pub fn host_c() -> Config {
        Config {
            local_memory: false,
            opencl_shift_rule: false,
            ..Config::default()
        }
    }

    /// Checks the sizes: every bound at least 1, a launch shape that fits in
    /// `max_work_items` with at least one work-item.
    pub fn validate(&self) -> Result<(), String> {
        let positive = [
            ("max_stmts", self.max_stmts),
            ("max_depth", self.max_depth),
            ("max_expr_depth", self.max_expr_depth),
            ("max_loop_trips", self.max_loop_trips),
            ("max_work_items", self.max_work_items),
        ];
        for (name, v) in positive {
            if v == 0 {
                return Err(format!("{name} must be at least 1"));
            }
        }
        for d in 0..3 {
            if self.max_grid[d] == 0 || self.max_block[d] == 0 {
                return Err(format!(
                    "max_grid and max_block must be at least 1 in every dimension (dimension {d})"
                ));
            }
        }
        if self.max_loop_trips > 64 {
            return Err("max_loop_trips is at most 64 (programs must stay small)".into());
        }
        if self.max_work_items > 4096 {
            return Err("max_work_items is at most 4096 (programs must stay small)".into());
        }
        if self.max_stmts > 2000 || self.max_depth > 12 || self.max_expr_depth > 12 {
            return Err(
                "max_stmts is at most 2000, max_depth and max_expr_depth at most 12".into(),
            );
        }
        if self.max_block.iter().map(|&b| b as u64).product::<u64>() > 1024 {
            return Err("a workgroup has at most 1024 work-items (max_block)".into());
        }
        if self.doubles && !self.floats {
            return Err("doubles need floats".into());
        }
        Ok(())
    }
}
