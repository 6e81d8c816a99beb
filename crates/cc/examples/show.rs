//! Print the assembly (or with `--ir`, the optimized IR) of an OpenCL file.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = std::path::Path::new(&args[1]);
    match warpkit_cc::compile_file(path, &warpkit_cc::Options::default()) {
        Ok(c) => {
            if args.get(2).is_some_and(|a| a == "--ir") {
                for k in &c.module.kernels {
                    println!("{k}");
                }
            } else {
                print!("{}", c.assembly);
            }
        }
        Err(f) => eprint!("{}", f.render()),
    }
}
