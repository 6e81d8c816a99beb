pub struct DisOptions;
pub fn disassemble(_b: &[u8], _base: u64, _o: &DisOptions) -> String {
    String::new()
}
